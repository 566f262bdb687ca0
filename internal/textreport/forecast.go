package textreport

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
)

// Forecasts prints forecasts as table rows, marking those at chance, and
// then each per-node forecast by source mass. Beside 1/k it prints the
// largest community's share: a ranking that learns nothing names that
// community first, so the verdict compares the rate with the larger of
// the two.
func Forecasts(out io.Writer, fs []forecast.Forecast) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODE\tMECHANISM\tε\tRIGHT COMMUNITY [95%]\tCHANCE (LARGEST)\tIN 90% SET [95%]\tSET SIZE (CHANCE)\tCEILING\tBUDGET BUYS (LEDGER / EXACT)\t")
	for _, f := range fs {
		mark := ""
		switch {
		case f.AtChance && f.Low > f.Guess() && len(f.MassCurve) > 0:
			// Its own interval clears the guess, but masses above it
			// do not: one simulation's error (the curve, below).
			mark = "  ← at chance: noise (see by source mass)"
		case f.AtChance:
			mark = "  ← at chance: noise"
		}
		ceil := "-"
		if f.Ceiling > 0 {
			ceil = fmt.Sprintf("%.3f", f.Ceiling)
		}
		mode := f.Mode
		if f.Smooth > 0 {
			mode += fmt.Sprintf(" τ′=%g", f.Smooth)
		}
		buys := "-"
		if b := f.BudgetBuys; b != nil {
			buys = fmt.Sprintf("%d / %d", b.Ledger, b.Optimal)
		}
		right := fmt.Sprintf("%.3f [%.3f, %.3f]", f.CommunityAccuracy, f.Low, f.High)
		in90 := fmt.Sprintf("%.3f [%.3f, %.3f]", f.In90Rate, f.In90Low, f.In90High)
		if f.Exact {
			right = fmt.Sprintf("%.3f (exact: audit)", f.CommunityAccuracy)
			in90 = fmt.Sprintf("%.3f (exact)", f.In90Rate)
		}
		fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t%.4f (%.3f)\t%s\t%.1f (%.3f)\t%s\t%s\t%s\n", mode, f.Mechanism, f.Epsilon,
			right, f.Chance, f.PriorRate, in90, f.In90Size, f.In90Chance, ceil, buys, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The rates above are for unit sources; a locate verdict simulates the
	// mass a release's readings carry.
	for i := range fs {
		if f := &fs[i]; len(f.MassCurve) > 0 {
			fmt.Fprintf(out, "%s at ε = %g, %s\n", f.Mode, f.Epsilon, MassCurve(f))
		}
		if f := &fs[i]; len(f.ExactNode) > 0 {
			fmt.Fprintf(out, "%s at ε = %g, %s\n", f.Mode, f.Epsilon, ExactNodeCurve(f.ExactNode))
		}
		if f := &fs[i]; f.SensorModel != "" {
			fmt.Fprintf(out, "%s at ε = %g: simulated on %d sources under the scope's sensor model (%s), answered at the nearest fit with its drift allowance\n",
				f.Mode, f.Epsilon, f.Trials, f.SensorModel)
		}
	}
	return nil
}

// MassCurve says a per-node forecast by source mass: "right community by
// source mass (units): 1: 0.29 · 10: 0.41 · … — resolves sources of 31.6
// units or more (…)". It shows every decade of the curve and its largest
// mass; f.MassCurve must not be empty.
func MassCurve(f *forecast.Forecast) string {
	var b strings.Builder
	for i, m := range f.MassCurve {
		if i%2 == 1 && i != len(f.MassCurve)-1 {
			continue // every decade, and the largest
		}
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(&b, "%g: %.2f", m.Mass, m.CommunityAccuracy)
		if m.VerdictTrials > 0 {
			fmt.Fprintf(&b, " (answer %.2f)", m.VerdictRate)
		}
	}
	top := f.MassCurve[len(f.MassCurve)-1].Mass
	if r := f.Resolved; r != nil {
		if r.Mass > 0 {
			fmt.Fprintf(&b, " — resolves sources of %g units or more: right at least %.2f of the time (halfway from a guess, %.3f, to always; %s within the 95%% intervals)",
				r.Mass, r.Rate, f.Guess(), massRange(r, top))
		} else {
			fmt.Fprintf(&b, " — resolves no source up to %g units: right less than %.2f of the time (halfway from a guess, %.3f, to always)", top, r.Rate, f.Guess())
		}
	}
	if f.ResolvableMass > 0 {
		fmt.Fprintf(&b, "; beats a guess from %g units (the verdict's threshold: a locate verdict simulates the mass the readings carry)", f.ResolvableMass)
	} else {
		fmt.Fprintf(&b, "; beats no guess up to %g units", top)
	}
	head := "right community by source mass (units): "
	if hasVerdictRate(f.MassCurve) {
		head = "right community by source mass (units; in brackets the rate locate's verdict finds a source in such a release — an answer, or better than a guess — not \"noise — not a finding\"): "
	}
	return head + b.String()
}

// massRange says where a resolved mass lies within the curve's
// intervals: "10–100 units", "10 units or more" (beyond the curve), "10
// units" (both ends one mass).
func massRange(r *forecast.Resolved, top float64) string {
	switch {
	case r.High == 0:
		return fmt.Sprintf("from %g units, or beyond %g", r.Low, top)
	case r.Low == r.High:
		return fmt.Sprintf("%g units", r.Low)
	}
	return fmt.Sprintf("%g–%g units", r.Low, r.High)
}

// AtChance says so, in one line, when a forecast's rate cannot be told
// from guessing (f.AtChance); it prints nothing otherwise.
func AtChance(out io.Writer, f forecast.Forecast) {
	if f.AtChance {
		fmt.Fprintf(out, "AT CHANCE: the right-community rate %.3f [%.3f, %.3f] cannot be told from guessing (%.4f: chance %.4f, always the largest community %.4f): noise, not a finding\n",
			f.CommunityAccuracy, f.Low, f.High, f.Guess(), f.Chance, f.PriorRate)
	}
}

// ForecastRows adds a dry run's forecasts as table rows: the per-node
// forecast (at the stated source mass, else of unit sources), its
// forecast by source mass, the dry run's verdict and the private answer's
// forecast (nothing when fs is nil). name says how the reader calls the
// parameters a row names.
func ForecastRows(row Row, fs *job.Forecasts, name func(errkind.Param) string) {
	if fs == nil {
		return
	}
	f := fs.PerNode
	sources := "1-unit sources"
	if f.SourceMass > 0 {
		sources = "a source of " + forecast.Units(f.SourceMass)
	}
	row("communities", fmt.Sprintf("%s, %d communities: the forecasts below score them", fs.Communities, f.Communities))
	row("forecast", fmt.Sprintf("right community with %s %.3f [%.3f, %.3f] (chance %.4f, largest community %.3f, DP ceiling %.3f); source in the 90%% set %.3f with %.1f communities",
		sources, f.CommunityAccuracy, f.Low, f.High, f.Chance, f.PriorRate, f.Ceiling, f.In90Rate, f.In90Size))
	if len(f.MassCurve) > 0 {
		row("by source mass", MassCurve(f))
	}
	if v := fs.Verdict; v != nil {
		switch {
		case v.AtChance:
			row("verdict", "AT CHANCE: this release would answer noise — "+v.Reason)
		case v.SourceMass > 0:
			row("verdict", v.Reason)
		default:
			row("verdict", fmt.Sprintf("%s (%s M judges a source of M units)", v.Reason, name(job.ParamSourceMass)))
		}
	}
	a := fs.Answer
	row("private answer", fmt.Sprintf("at the same ε, %s (%s) would be right %.3f [%.3f, %.3f]",
		name(job.ParamPrivateAnswer), a.Mechanism, a.CommunityAccuracy, a.Low, a.High))
}

// hasVerdictRate reports whether a curve forecasts locate's verdict.
func hasVerdictRate(curve []forecast.MassPoint) bool {
	for _, m := range curve {
		if m.VerdictTrials > 0 {
			return true
		}
	}
	return false
}

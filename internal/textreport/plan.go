package textreport

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/recovery"
)

// Plan prints a release forecast (graphcloak plan): the graph and Δ2, the
// budget and what it buys, the forecasts, the answer audits and each
// target's smallest ε. name says how the reader calls the parameters a
// line names.
func Plan(out io.Writer, rep *job.ForecastReport, name func(errkind.Param) string) error {
	fmt.Fprintf(out, "graph %s (%d nodes, %d relationships), %d communities (%s), τ = %g",
		rep.Graph, rep.NodeCount, rep.Relationships, rep.CommunityCount, rep.Communities, rep.Tau)
	if rep.Delta2 != nil {
		exact := "exact"
		if !rep.Delta2Exact {
			exact = "proven upper bound"
		}
		fmt.Fprintf(out, ", Δ2 = %.6g (%s)", *rep.Delta2, exact)
	}
	fmt.Fprintln(out)
	if rep.Local != "" {
		fmt.Fprintln(out, rep.Local)
	}
	if b := rep.Budget; b != nil {
		planBudget(out, b, name)
		if eps, delta, ok := ruleRelease(rep); ok {
			zcdpRule(out, b.Budget, b.RhoBudget, eps, delta)
		}
	}
	if err := Forecasts(out, rep.Result.Forecasts); err != nil {
		return err
	}
	AnswerAudits(out, rep)
	if err := ByCommunity(out, rep.Result.Forecasts); err != nil {
		return err
	}
	for _, n := range rep.Result.Needed {
		planTarget(out, n)
	}
	return nil
}

// ruleRelease is the release the zCDP rule is worked on: the first
// forecast — in a local plan the first per-node one (rows the sensors
// refuse are gone), else at the largest ε they accept; ok false when
// there is none.
func ruleRelease(rep *job.ForecastReport) (eps, delta float64, ok bool) {
	fs := rep.Result.Forecasts
	if rep.SensorFloor == nil {
		if len(fs) == 0 {
			return 0, 0, false
		}
		return fs[0].Epsilon, fs[0].Delta, true
	}
	for _, f := range fs {
		if f.Mode == forecast.ModePerNode {
			return f.Epsilon, f.Delta, true
		}
	}
	rows := slices.Clone(fs)
	for _, n := range rep.Result.Needed {
		rows = append(rows, n.Forecast) // a δ when every row was left out
	}
	if len(rows) == 0 || rep.SensorFloor.MaxEpsilon <= 0 || rows[0].Delta <= 0 {
		return 0, 0, false
	}
	return rep.SensorFloor.MaxEpsilon, rows[0].Delta, true
}

// planTarget says the smallest ε that reaches a target, or how far the
// search went: to ε = 32, or in a local plan to the largest ε the
// sensors accept.
func planTarget(out io.Writer, n forecast.NeededEpsilon) {
	switch {
	case n.Reached:
		fmt.Fprintf(out, "target %.2f: %s (%s) reaches it at ε = %g (forecast %.3f [%.3f, %.3f])\n",
			n.Target, n.Mode, n.Mechanism, *n.Epsilon, n.Forecast.CommunityAccuracy, n.Forecast.Low, n.Forecast.High)
	case n.MaxEpsilon != nil && *n.MaxEpsilon <= 0:
		fmt.Fprintf(out, "target %.2f: %s is not forecast: the sensors accept no ε at this δ (σ below their floor)\n", n.Target, n.Mode)
	case n.MaxEpsilon != nil:
		fmt.Fprintf(out, "target %.2f: %s does not reach it at any ε the sensors accept, ε ≤ %g (%.3f at ε = %g, σ = %.4g); a larger ε's σ is below their floor\n",
			n.Target, n.Mode, *n.MaxEpsilon, n.Forecast.CommunityAccuracy, n.Forecast.Epsilon, n.Forecast.Sigma)
	default:
		fmt.Fprintf(out, "target %.2f: %s does not reach it at any ε ≤ %g (%.3f at ε = %g)\n",
			n.Target, n.Mode, n.Forecast.Epsilon, n.Forecast.CommunityAccuracy, n.Forecast.Epsilon)
	}
}

// planBudget says the budget a plan counts in: the ledger scope it was
// read from, and the rule under which it admits answers and releases.
func planBudget(out io.Writer, b *job.ForecastBudget, name func(errkind.Param) string) {
	if s := b.Scope; s != nil {
		fmt.Fprintf(out, "scope %s of ledger %s: %d releases charged, ρ spent %.6g of %.6g, ρ remaining %.6g, answers' ε remaining %.6g (BUDGET BUYS counts a fresh scope of its budget)\n",
			s.Scope, b.Ledger, s.Releases, s.RhoSpent, s.RhoBudget, s.RhoRemaining, s.AnswerEpsilonRemaining)
	}
	if b.AnswerEpsilon > 0 {
		fmt.Fprintf(out, "budget %v: answers while Σε ≤ %g, Gaussian releases while Σρ ≤ %.6g (CKSRho(%g, %g))\n",
			b.Budget, b.AnswerEpsilon, b.RhoBudget, b.Epsilon-b.AnswerEpsilon, b.Delta)
		return
	}
	fmt.Fprintf(out, "budget %v, no answers' share: answers and Gaussian releases while Σρ ≤ %.6g in zCDP, an answer costing ρ = min(ε²/2, ε) (%s to plan a share)\n",
		b.Budget, b.RhoBudget, name(job.ParamAnswerEpsilon))
}

// AnswerAudits prints a plan's answer audits, one line per ε (or why
// answers would be refused).
func AnswerAudits(out io.Writer, rep *job.ForecastReport) {
	if rep.AnswerRefused != "" {
		fmt.Fprintf(out, "private answers would be refused at this τ: %s\n", rep.AnswerRefused)
	}
	for _, a := range rep.AnswerAudits {
		verdict := "passed"
		if !a.Passed {
			verdict = "FAILED: such answers are refused"
		}
		fmt.Fprintf(out, "answer audit ε = %g: %d sources fitted (%d refitted end to end), %d classes (%d nodes merged), worst loss %.6g ≤ %.6g over %d edges: %s; every source's noiseless readings answered with its community %.3f of the time\n",
			a.Epsilon, a.SourcesChecked, a.SourcesRefitted, a.Classes, a.NodesMerged, a.WorstLoss, a.Bound, a.EdgesChecked, verdict, a.Accuracy)
		if a.SensorNoise > 0 {
			fmt.Fprintf(out, "  with Gaussian sensor noise of rms %g of the mean reading: readings leave the model (refused, or rr) with probability ≤ %.3g at that rms and ≤ %.3g at 1.5× it (δ, charged per answer); "+
				"inside the model the answer is the noiseless one, so counting a refusal as wrong the rate is ≥ %.3f\n",
				a.SensorNoise, a.SensorNoiseDeltaAtStated, a.SensorNoiseDelta, max(0, a.Accuracy-a.SensorNoiseDeltaAtStated))
			noiseExit(out, a.SensorNoiseExit)
		}
	}
}

// maxCommunityRows is how many communities ByCommunity lists, the largest
// first (the JSON lists all).
const maxCommunityRows = 20

// ByCommunity prints the forecasts' rates per community of the source:
// one row per community (the largest first), one column per forecast,
// "rate (sources simulated there)", marked * when answerable (above
// chance and above the rate it is named for sources elsewhere), and how many communities each forecast answers. Nothing when
// no forecast has rates per community.
func ByCommunity(out io.Writer, fs []forecast.Forecast) error {
	var cols []forecast.Forecast
	for _, f := range fs {
		if len(f.ByCommunity) > 0 {
			cols = append(cols, f)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	rows := cols[0].ByCommunity
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rows[b].Size - rows[a].Size })
	fmt.Fprintf(out, "by community: the rate its sources' community comes first (in brackets the sources simulated there, or every node for an audit's exact rate); * answerable: its 95%% interval is above chance %.4f and above the rate the mode names it when the source lies elsewhere\n", cols[0].Chance)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "COMMUNITY\tNODES\t")
	for _, f := range cols {
		mode := f.Mode
		if f.Smooth > 0 {
			mode += fmt.Sprintf(" τ′=%g", f.Smooth)
		}
		fmt.Fprintf(tw, "%s ε=%g\t", strings.ToUpper(mode), f.Epsilon)
	}
	fmt.Fprintln(tw)
	for n, i := range order {
		if n == maxCommunityRows {
			break
		}
		fmt.Fprintf(tw, "%s\t%d\t", rows[i].Community, rows[i].Size)
		for _, f := range cols {
			c := f.ByCommunity[i]
			mark := ""
			if c.Answerable {
				mark = "*"
			}
			fmt.Fprintf(tw, "%.2f%s (%d)\t", c.Rate, mark, c.Trials)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "answerable\t\t")
	for _, f := range cols {
		n := 0
		for _, c := range f.ByCommunity {
			if c.Answerable {
				n++
			}
		}
		fmt.Fprintf(tw, "%d of %d\t", n, len(f.ByCommunity))
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rows) > maxCommunityRows {
		fmt.Fprintf(out, "(and %d smaller communities; the JSON lists every one)\n", len(rows)-maxCommunityRows)
	}
	return nil
}

// noiseExit prints the probability that noise of 1, 1.5, 2 and 3 times
// the stated rms leaves the model: the cliff beyond the δ covered.
func noiseExit(out io.Writer, exits []recovery.NoiseExit) {
	if len(exits) == 0 {
		return
	}
	fmt.Fprint(out, "  the noise leaves the model (exact tails) with probability")
	for i, e := range exits {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(out, "%s %.3g at %g×", sep, e.Probability, e.Times)
	}
	fmt.Fprintln(out, " the stated rms — beyond 1.5× the guarantee's δ does not cover it")
}

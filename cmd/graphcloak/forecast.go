package main

import (
	"fmt"
	"strings"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
)

// sourceMassUsage is --source-mass's help, one text on locate, release
// and serve.
const sourceMassUsage = "total source mass (units) the readings carry, stated: the verdict's forecast simulates it " +
	"(0: locate estimates it from the release, with its 95% lower bound; a dry run and --refuse-at-chance judge by the forecast by source mass)"

// forecastRows prints the forecasts as table rows: the per-node forecast
// (at the stated source mass, else of unit sources), its forecast by
// source mass, the dry run's verdict and the private answer's forecast.
func forecastRows(row func(string, any), fs *job.Forecasts) {
	if fs == nil {
		return
	}
	f := fs.PerNode
	sources := "1-unit sources"
	if f.SourceMass > 0 {
		sources = "a source of " + job.Units(f.SourceMass)
	}
	row("forecast", fmt.Sprintf("right community with %s %.3f [%.3f, %.3f] (chance %.4f, largest community %.3f, DP ceiling %.3f); source in the 90%% set %.3f with %.1f communities",
		sources, f.CommunityAccuracy, f.Low, f.High, f.Chance, f.PriorRate, f.Ceiling, f.In90Rate, f.In90Size))
	if len(f.MassCurve) > 0 {
		row("by source mass", massCurveText(f))
	}
	if v := fs.Verdict; v != nil {
		switch {
		case v.AtChance:
			row("verdict", "AT CHANCE: this release would answer noise — "+v.Reason)
		case v.SourceMass > 0:
			row("verdict", v.Reason)
		default:
			row("verdict", v.Reason+" (--source-mass M judges a source of M units)")
		}
	}
	a := fs.Answer
	row("private answer", fmt.Sprintf("at the same ε, locate --private-answer (%s) would be right %.3f [%.3f, %.3f]",
		a.Mechanism, a.CommunityAccuracy, a.Low, a.High))
}

// massCurveText says a per-node forecast by source mass: "1 unit 0.29 ·
// 10 units 0.41 · … — answers from 31.6 units".
func massCurveText(f *forecast.Forecast) string {
	var b strings.Builder
	for i, m := range f.MassCurve {
		if i%2 == 1 && i != len(f.MassCurve)-1 {
			continue // every decade, and the largest
		}
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(&b, "%g: %.2f", m.Mass, m.CommunityAccuracy)
	}
	if f.ResolvableMass > 0 {
		fmt.Fprintf(&b, " — resolves sources of %g units or more (a locate verdict simulates the mass the readings carry)", f.ResolvableMass)
	} else {
		fmt.Fprintf(&b, " — resolves no source up to %g units", f.MassCurve[len(f.MassCurve)-1].Mass)
	}
	return "right community by source mass (units): " + b.String()
}

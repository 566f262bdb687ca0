package main

import (
	"fmt"

	"github.com/graphcloak/graphcloak/internal/textreport"
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
		row("by source mass", textreport.MassCurve(f))
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

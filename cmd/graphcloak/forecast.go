package main

import (
	"fmt"

	"github.com/graphcloak/graphcloak/job"
)

// forecastRows prints the forecasts as table rows.
func forecastRows(row func(string, any), fs *job.Forecasts) {
	if fs == nil {
		return
	}
	f := fs.PerNode
	verdict := ""
	if f.AtChance {
		verdict = fmt.Sprintf("  ← AT CHANCE: no better than a guess (%.3f), this release would answer noise", f.Guess())
	}
	row("forecast", fmt.Sprintf("right community %.3f [%.3f, %.3f] (chance %.4f, largest community %.3f, DP ceiling %.3f); source in the 90%% set %.3f with %.1f communities%s",
		f.CommunityAccuracy, f.Low, f.High, f.Chance, f.PriorRate, f.Ceiling, f.In90Rate, f.In90Size, verdict))
	a := fs.Answer
	row("private answer", fmt.Sprintf("at the same ε, locate --private-answer (%s) would be right %.3f [%.3f, %.3f]",
		a.Mechanism, a.CommunityAccuracy, a.Low, a.High))
}

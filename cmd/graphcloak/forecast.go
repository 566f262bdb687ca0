package main

import (
	"context"
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/laplacian"
)

// releaseForecasts is what a dry run shows before ε is spent: how often a
// per-node release with σ names the right community (communities as locate
// detects them by default: Leiden), and how often the private answer at
// the same ε would.
type releaseForecasts struct {
	PerNode *experiment.Forecast `json:"perNode"`
	Answer  *experiment.Forecast `json:"privateAnswer"`
}

// forecastRelease simulates trials sources on graph at τ with the
// release's σ, and the private answer at ε. Each forecast stops starting
// trials after 5% of the release's modelled time (at least 2 s, and at
// least 20 trials), so both cost about a tenth of the release.
func forecastRelease(ctx context.Context, g *globalOptions, graph *laplacian.Graph, tau, alpha, eps, delta, sigma float64, estimator string, seed uint64, trials int, releaseSeconds float64) (*releaseForecasts, error) {
	budget := time.Duration(max(2, 0.05*releaseSeconds) * float64(time.Second))
	part, err := community.Leiden(graph, community.LeidenOptions{Seed: seed})
	if err != nil {
		return nil, err
	}
	e := experiment.Graph{Graph: graph, Partition: part, Tau: tau, Sigma: sigma, Alpha: alpha, Delta: delta, Sources: 1,
		Trials: trials, Estimator: estimator, Seed: seed, Progress: g.progress("forecast trials"),
		TimeBudget: budget, MinTrials: min(20, trials)}
	r, err := experiment.RunGraph(ctx, e)
	if err != nil {
		return nil, err
	}
	pn := experiment.ForecastOf(r)
	pn.Epsilon, pn.Delta = eps, delta
	pn.Ceiling = experiment.Ceiling(graph, part, eps, delta)
	e.Sigma = 0
	a, err := experiment.RunAnswer(ctx, experiment.Answer{Graph: &e, Epsilon: eps, Alpha: alpha})
	if err != nil {
		return nil, err
	}
	an := experiment.ForecastOfAnswer(a)
	an.Delta, an.Ceiling = delta, pn.Ceiling
	return &releaseForecasts{PerNode: &pn, Answer: &an}, nil
}

// forecastRows prints the forecasts as table rows.
func forecastRows(row func(string, any), fs *releaseForecasts) {
	if fs == nil {
		return
	}
	f := fs.PerNode
	verdict := ""
	if f.AtChance {
		verdict = "  ← AT CHANCE: this release would answer noise"
	}
	row("forecast", fmt.Sprintf("right community %.3f [%.3f, %.3f] (chance %.4f, DP ceiling %.3f); source in the 90%% set %.3f with %.1f communities%s",
		f.CommunityAccuracy, f.Low, f.High, f.Chance, f.Ceiling, f.In90Rate, f.In90Size, verdict))
	a := fs.Answer
	row("private answer", fmt.Sprintf("at the same ε, locate --private-answer (%s) would be right %.3f [%.3f, %.3f]",
		a.Mechanism, a.CommunityAccuracy, a.Low, a.High))
}

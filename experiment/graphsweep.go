package experiment

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// GraphSweep is the graph experiment at several τ and ε.
type GraphSweep struct {
	// Graph is the experiment at each point but its Tau, Epsilon and
	// Sensitivity, which the sweep sets; with a fixed Sigma it runs once
	// per τ (ε does not apply).
	Graph          forecast.Simulation
	Taus, Epsilons []float64
	// TimeBudget bounds each τ's Δ2 computation (0: none): it then uses
	// the best proven upper bound reached.
	TimeBudget time.Duration
	// Progress, when non-nil, makes the progress callback of each stage
	// ("sensitivity" at each τ, "graph trials" at each point).
	Progress func(stage string) func(done, total int)
}

// SweepGraph runs the graph experiment at every τ and ε of s, τ by τ; Δ2
// depends on τ and α only, so it is computed once per τ.
func SweepGraph(ctx context.Context, s GraphSweep) ([]*forecast.SimulationResult, error) {
	progress := func(stage string) func(done, total int) {
		if s.Progress == nil {
			return nil
		}
		return s.Progress(stage)
	}
	var results []*forecast.SimulationResult
	epsilons := s.Epsilons
	if s.Graph.Sigma != 0 {
		epsilons = []float64{0}
	}
	for _, tau := range s.Taus {
		var sens *sensitivity.Result
		if s.Graph.Sigma == 0 {
			r, err := graphcloak.Sensitivity(ctx, s.Graph.Graph, tau, s.Graph.Alpha, sensitivity.Options{TimeBudget: s.TimeBudget,
				Progress: progress("sensitivity"), Done: ctx.Done()})
			if err != nil {
				return nil, err
			}
			sens = &r
		}
		for _, eps := range epsilons {
			e := s.Graph
			e.Tau, e.Epsilon, e.Sensitivity, e.Progress = tau, eps, sens, progress("graph trials")
			res, err := forecast.Simulate(ctx, e)
			if err != nil {
				return nil, err
			}
			results = append(results, res)
		}
	}
	return results, nil
}

package experiment

import (
	"context"
	"time"

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
			r, err := sensitivity.GraphContext(ctx, s.Graph.Graph, tau, s.Graph.Alpha, sensitivity.Options{TimeBudget: s.TimeBudget,
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

// SweepAnswers forecasts the private answer with distance cap answerCap
// (0: the most accurate) at every τ and ε of s, one source a trial; each
// forecast carries the routed ceiling of its ε, computed once per ε since
// it does not depend on τ.
func SweepAnswers(ctx context.Context, s GraphSweep, answerCap int) ([]forecast.Forecast, error) {
	var fs []forecast.Forecast
	ceilings := map[float64]float64{}
	// The calibrations (each τ's ε) and the ceilings (each ε once) are one
	// step each, across τ: they can run for tens of seconds after the trials.
	calibrated, ceiled := func(int, int) {}, func(int, int) {}
	if s.Progress != nil {
		calibrated, ceiled = s.Progress("answer calibrations"), s.Progress("routed ceilings")
	}
	for t, tau := range s.Taus {
		e := s.Graph
		e.Tau, e.Sources = tau, 1
		if s.Progress != nil {
			e.Progress = s.Progress("graph trials")
		}
		scored := func(done, _ int) { calibrated(t*len(s.Epsilons)+done, len(s.Taus)*len(s.Epsilons)) }
		rs, err := forecast.AnswerSweep(ctx, forecast.AnswerSimulation{Graph: &e, Alpha: e.Alpha, Cap: answerCap, Scored: scored}, s.Epsilons)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			f := forecast.OfAnswer(r)
			f.Delta = e.Delta
			if _, ok := ceilings[f.Epsilon]; !ok {
				ceiled(len(ceilings), len(s.Epsilons))
				if ceilings[f.Epsilon], err = forecast.RoutedCeiling(ctx, e.Graph, r.Geometry().Partition(), f.Epsilon, e.Delta); err != nil {
					return nil, err
				}
				ceiled(len(ceilings), len(s.Epsilons))
			}
			f.Ceiling = ceilings[f.Epsilon]
			fs = append(fs, f)
		}
	}
	return fs, nil
}

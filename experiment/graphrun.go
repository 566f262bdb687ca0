package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// GraphRun is the graph experiment a command asks for: the simulation's
// settings, the τ and ε it sweeps and how it reports them. The graph and
// its scoring partition are loaded by the caller (the stores).
type GraphRun struct {
	Graph          string    // the graph's spec, as reported
	Taus, Epsilons []float64 // one experiment per (τ, ε) pair
	Delta          float64
	Mechanism      string // privacy.ParseMechanism's names
	Alpha          float64
	Sigma          float64 // fixed, non-private σ instead of ε (0: calibrated)
	Sources        int
	Trials         int
	Estimator      string
	Seed           uint64
	Workers        int
	Resolution     float64 // of community detection, when it scores
	Plot           string  // "": no picture
	PrivateAnswer  bool    // score the private answer instead of the per-node release
	AnswerCap      int
	TimeBudget     time.Duration // of Δ2; 0: to completion
}

// Check refuses (bad input) a run whose picture file, trials, sources, τ,
// α, resolution, σ or (ε, δ), or estimator are out of range, before its
// graph is loaded.
func (r GraphRun) Check() error {
	if err := CheckPlot(r.Plot); err != nil {
		return err
	}
	switch {
	case r.Trials < 1:
		return errkind.Inputf("%s must be at least 1, got %d", ParamTrials, r.Trials)
	case r.Sources < 1:
		return errkind.Inputf("%s must be at least 1, got %d", ParamSources, r.Sources)
	}
	for _, tau := range r.Taus {
		if err := errkind.CheckPositive(ParamTau, tau); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		name errkind.Param
		v    float64
	}{{ParamAlpha, r.Alpha}, {ParamResolution, r.Resolution}} {
		if err := errkind.CheckPositive(p.name, p.v); err != nil {
			return err
		}
	}
	if r.Sigma != 0 {
		if err := errkind.CheckPositive(ParamSigma, r.Sigma); err != nil {
			return err
		}
	} else {
		for _, eps := range r.Epsilons {
			if err := CheckPrivacy(eps, r.Delta); err != nil {
				return err
			}
		}
	}
	return CheckEstimator(r.Estimator)
}

// Simulation is the simulation r describes on graph, scored against
// part (named names; nil: Leiden), τ and ε left to the sweep. It refuses
// more sources than graph has nodes and an unknown mechanism (bad input).
func (r GraphRun) Simulation(graph *laplacian.Graph, part []int, names []string) (forecast.Simulation, error) {
	if r.Sources > graph.N() {
		return forecast.Simulation{}, errkind.Inputf("%s %d exceeds the graph's %d nodes", ParamSources, r.Sources, graph.N())
	}
	mech, err := ParseMechanism(r.Mechanism)
	if err != nil {
		return forecast.Simulation{}, err
	}
	return r.SimulationWith(graph, part, names, mech), nil
}

// SimulationWith is the simulation r describes on graph and part with
// the mechanism mech, unchecked (Simulation checks).
func (r GraphRun) SimulationWith(graph *laplacian.Graph, part []int, names []string, mech privacy.Mechanism) forecast.Simulation {
	return forecast.Simulation{Graph: graph, Partition: part, Names: names, Delta: r.Delta, Mechanism: mech,
		Alpha: r.Alpha, Sigma: r.Sigma, Sources: r.Sources, Trials: r.Trials, Estimator: r.Estimator,
		Seed: r.Seed, Workers: r.Workers}
}

// GraphOutcome is what a graph experiment produced: the private answer's
// forecasts, or several experiments' sweep, or one experiment.
type GraphOutcome struct {
	Answers *AnswerReport
	Sweep   *SweepReport
	One     *forecast.SimulationResult
}

// AnswerReport is the private answer scored at every τ and ε of a run.
// Its fields are in the order the JSON of a map had them.
type AnswerReport struct {
	Forecasts []forecast.Forecast `json:"forecasts"`
	Graph     string              `json:"graph"`
}

// Run runs r on sim (Simulation's, with its partition; the partition's
// kind is reported as the community source), τ by τ, with progress
// (nil: none) making each stage's callback. Several experiments are
// summarised and, with a Plot, drawn against ε (against τ for one ε or a
// fixed σ); drawing one experiment's picture is the caller's.
func (r GraphRun) Run(ctx context.Context, sim forecast.Simulation, kind string, progress func(stage string) func(done, total int)) (GraphOutcome, error) {
	s := GraphSweep{Taus: r.Taus, Epsilons: r.Epsilons, TimeBudget: r.TimeBudget, Progress: progress, Graph: sim}
	if r.PrivateAnswer {
		return r.answers(ctx, s)
	}
	results, err := SweepGraph(ctx, s)
	if err != nil {
		return GraphOutcome{}, err
	}
	for _, res := range results {
		res.Graph, res.CommunitySource = r.Graph, kind
	}
	if len(results) == 1 {
		return GraphOutcome{One: results[0]}, nil
	}
	sw := SweepReport{Experiments: results, Summary: Summarise(results)}
	if r.Plot != "" {
		caption := fmt.Sprintf("%s, %s estimator, %d trials per point, δ = %g, α = %g; dotted: chance", r.Graph, results[0].Estimator, results[0].Trials, r.Delta, r.Alpha)
		byTau := len(r.Epsilons) == 1 || r.Sigma != 0 // one ε, or a fixed σ: the rates against τ
		if err := sw.Summary.Plot(r.Plot, caption, byTau); err != nil {
			return GraphOutcome{}, err
		}
		sw.Plot = r.Plot
	}
	return GraphOutcome{Sweep: &sw}, nil
}

// answers scores the private-answer mode at every τ and ε of s: it
// publishes one community, so no σ applies and one source is planted.
func (r GraphRun) answers(ctx context.Context, s GraphSweep) (GraphOutcome, error) {
	if r.Sigma != 0 {
		return GraphOutcome{}, errkind.Usagef("%s publishes no noisy values: %s does not apply", ParamPrivateAnswer, ParamSigma)
	}
	if r.Sources != 1 {
		return GraphOutcome{}, errkind.Usagef("%s publishes one community: %s must be 1", ParamPrivateAnswer, ParamSources)
	}
	s.TimeBudget = 0 // the answer computes no Δ2
	fs, err := SweepAnswers(ctx, s, r.AnswerCap)
	if err != nil {
		return GraphOutcome{}, err
	}
	return GraphOutcome{Answers: &AnswerReport{Forecasts: fs, Graph: r.Graph}}, nil
}

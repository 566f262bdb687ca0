package main

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// The simulated graph inputs shared by the commands that simulate
// releases on a graph (experiment graph, plan): their flags, the graph and
// communities they score against, and the simulation they describe.

const simulationNote = `Experiments simulate the mechanism; they release nothing. Their noise comes
from a seeded math/rand/v2 stream so every number is reproducible from --random-seed,
and they never touch a privacy ledger. Real releases use 'graphcloak release'.`

// graphOptions are the flags of "experiment graph" (plan takes the same).
type graphOptions struct {
	graph          string
	taus, epsilons []float64 // one experiment per (τ, ε) pair
	delta          float64
	mechanism      string
	alpha          float64
	sigma          float64
	sources        int
	trials         int
	estimator      string
	seed           uint64
	communities    string
	resolution     float64
	workers        int
	plot           string
	privateAnswer  bool
	answerCap      int
	timeBudget     time.Duration // of Δ2; 0: to completion (the flag refuses negative ones)
}

// simulation is the simulation o describes on graph and its partition,
// with the mechanism mech (τ and ε are a sweep's).
func (o *graphOptions) simulation(graph *laplacian.Graph, part []int, names []string, mech privacy.Mechanism) forecast.Simulation {
	return o.run().SimulationWith(graph, part, names, mech)
}

// loadExperimentGraph loads --graph (with the community property when
// --communities property:NAME) for a simulation (loadGraphFlag, the
// flag naming a graph outside Neo4j that cannot be read).
func loadExperimentGraph(ctx context.Context, g *globalOptions, spec, property string) (*stores.Graph, error) {
	return loadGraphFlag(ctx, g, spec, property, true)
}

// run is the graph experiment o asks for (experiment.GraphRun).
func (o *graphOptions) run() experiment.GraphRun {
	return experiment.GraphRun{Graph: o.graph, Taus: o.taus, Epsilons: o.epsilons, Delta: o.delta, Mechanism: o.mechanism,
		Alpha: o.alpha, Sigma: o.sigma, Sources: o.sources, Trials: o.trials, Estimator: o.estimator, Seed: o.seed,
		Workers: o.workers, Resolution: o.resolution, Plot: o.plot, PrivateAnswer: o.privateAnswer, AnswerCap: o.answerCap,
		TimeBudget: o.timeBudget}
}

// checkExperimentGraph validates experiment graph's flags
// (experiment.GraphRun.Check) and returns the community property to read
// (for --communities property:NAME).
func checkExperimentGraph(o *graphOptions) (property string, err error) {
	if err := o.run().Check(); err != nil {
		return "", err
	}
	property, isProperty, err := job.ScoredPartitionProperty(o.communities)
	if err != nil {
		return "", err
	}
	if isProperty && o.graph != stores.Neo4jSpec {
		return "", errkind.Usagef("--communities property:NAME needs %s", graphNeo4j)
	}
	return property, nil
}

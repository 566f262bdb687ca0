package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// planWork is what plan will run on lg (spec) as cost.Plan models it,
// the per-node forecasts' trials timed or priced (cost.PlanWork.Timed),
// each step told to each as it is modelled.
func planWork(o *planOptions, lg *stores.Graph, spec job.ForecastSpec, timed bool, each func(cost.Step)) cost.PlanWork {
	held := spec.Held()
	return cost.PlanWork{GraphName: o.graph, Simulation: spec.Simulation, Epsilons: o.epsilons, Smooth: o.smooth, Modes: o.modes,
		TimeBudget: o.timeBudget, FitTolerance: o.fitTolerance, SensorNoise: o.sensorNoise.at(lg.Graph.N()),
		Held: cost.Held{Delta2: held.Delta2 != nil, AnswerModel: held.AnswerModel, Rows: held.Rows}, Timed: timed, Each: each, Name: flagName}
}

// printPlanEstimate prints plan --estimate.
func printPlanEstimate(g *globalOptions, out io.Writer, e cost.PlanEstimate) error {
	if g.output == "json" {
		return printJSON(out, e)
	}
	fmt.Fprintf(out, "plan of graph %s (%d nodes, %d relationships) at τ = %g: estimated %s for its modelled steps; nothing computed\n",
		e.Graph, e.NodeCount, e.Edges, e.Tau, seconds(e.Seconds))
	for _, s := range e.Steps {
		fmt.Fprintf(out, "  %-20s %-12s %s\n", s.Step, seconds(s.Seconds), s.Model)
	}
	if e.Simulations > 0 && !e.SimulationsModelled() {
		fmt.Fprintf(out, "  and up to %d simulated releases (not modelled: their progress lines give an ETA as they run)\n", e.Simulations)
	}
	return nil
}

// runPlanEstimate prints plan --estimate (cost.Plan, its trials timed).
func runPlanEstimate(g *globalOptions, o *planOptions, lg *stores.Graph, spec job.ForecastSpec, out io.Writer) error {
	e, err := cost.Plan(planWork(o, lg, spec, true, nil))
	if err != nil {
		return err
	}
	return printPlanEstimate(g, out, e)
}

// planEstimateNodes is the size from which a command prints its
// estimate before it starts (cost.LineNodes).
const planEstimateNodes = cost.LineNodes

// sayStepsAfter is how long plan's modelling may take before it tells
// each step's estimate as it is modelled instead of the sum first.
const sayStepsAfter = 1500 * time.Millisecond

// sayPlanEstimate prints plan's estimate (cost.Plan, its trials priced)
// before its long steps — their sum, then each step's (each as it is
// modelled once the modelling has taken sayStepsAfter) — when the graph
// has planEstimateNodes nodes or more and the modelled steps take more
// than longStep. The audit's model is kept (g.firstEstimates): the pass's
// own line prints that figure, not a second model's.
func sayPlanEstimate(g *globalOptions, o *planOptions, lg *stores.Graph, spec job.ForecastSpec) {
	if g.quiet || lg.Graph.N() < planEstimateNodes {
		return
	}
	// The sum first, then each long step's estimate — unless modelling
	// takes over sayStepsAfter (timing trials on a large graph): then each
	// step's as soon as it is modelled, so that a line comes early.
	var mu sync.Mutex
	var held []string
	late := false
	flush := func() {
		for _, l := range held {
			g.say(l)
		}
		held = nil
	}
	timer := time.AfterFunc(sayStepsAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		late = true
		flush()
	})
	e, err := cost.Plan(planWork(o, lg, spec, false, func(st cost.Step) {
		if st.Seconds <= longStep.Seconds() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		held = append(held, fmt.Sprintf("estimated %s for %s: %s", seconds(st.Seconds), st.Step, st.Model))
		if late {
			flush()
		}
	}))
	timer.Stop()
	g.firstEstimates.Keep(lg.Graph, e.AuditEstimate()) // the pass's own line is this figure
	mu.Lock()
	defer mu.Unlock()
	defer flush()
	if err != nil || e.Seconds <= longStep.Seconds() {
		return
	}
	line := cost.Line("the plan's modelled steps", e.Seconds, e.Steps)
	line = line[:len(line)-1] // its closing parenthesis, after the simulations
	if !e.SimulationsModelled() {
		line += fmt.Sprintf("; and up to %d simulated releases, not modelled", e.Simulations)
	}
	g.say(line + ") — plan --estimate explains")
}

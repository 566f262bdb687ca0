package main

import (
	"io"
	"time"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// printPlanEstimate prints plan --estimate.
func printPlanEstimate(g *globalOptions, out io.Writer, e cost.PlanEstimate) error {
	if g.output == "json" {
		return printJSON(out, e)
	}
	textreport.PlanEstimate(out, e)
	return nil
}

// runPlanEstimate prints plan --estimate (cost.Plan, its trials priced
// at the step rate the audit's model measures, as plan's first line):
// timing them by the curves' pilot took seconds to minutes (astro-ph
// 7.8 s, polblogs 4.4 CPU-s) where --estimate promises ~0.3 s.
func runPlanEstimate(g *globalOptions, spec job.ForecastSpec, out io.Writer) error {
	e, err := cost.Plan(spec.CostWork(false, flagName))
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
func sayPlanEstimate(g *globalOptions, lg *stores.Graph, spec job.ForecastSpec) {
	if g.quiet || lg.Graph.N() < planEstimateNodes {
		return
	}
	e, _ := cost.SayPlan(spec.CostWork(false, flagName), longStep, sayStepsAfter, " — plan --estimate explains", g.say)
	g.firstEstimates.Keep(lg.Graph, e.AuditEstimate()) // the pass's own line is this figure
}

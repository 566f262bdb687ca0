package main

import (
	"fmt"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// The --estimate of every command (GDS's .estimate): what each long step
// is modelled to take, computing, writing and charging nothing. Each step
// has one model, in package cost, shared by every command that runs the
// step and by the estimate line a command prints before it; here they are
// only printed.

// printWorkEstimate prints a command's estimate: its JSON, or a table.
func printWorkEstimate(g *globalOptions, out io.Writer, e *cost.Estimate) error {
	e.Finish()
	if g.output == "json" {
		return printJSON(out, e)
	}
	fmt.Fprintf(out, "%s on graph %s (%d nodes, %d relationships): estimated %s for its modelled steps; nothing computed, written or charged\n",
		e.Command, e.Graph, e.NodeCount, e.Edges, seconds(e.Seconds))
	printSteps(out, e.Steps)
	return nil
}

// printSteps prints estimate steps as the rows of a table.
func printSteps(out io.Writer, steps []cost.Step) {
	for _, s := range steps {
		fmt.Fprintf(out, "  %-26s %-12s %s\n", s.Step, seconds(s.Seconds), s.Model)
	}
}

// seconds renders a modelled time (answer.HumanDuration).
func seconds(s float64) string { return answer.HumanDuration(time.Duration(s * float64(time.Second))) }

// sayDelta2Estimate prints the sensitivity command's estimate before Δ2
// is computed at τ on gr with opt: the time since began (the load and
// Δ2's model) and Δ2's (cost.Delta2), when the graph has planEstimateNodes
// nodes or more (below, the model's own bound timings are not worth it)
// and their sum is more than longStep.
func sayDelta2Estimate(g *globalOptions, gr *laplacian.Graph, tau float64, opt sensitivity.Options, began time.Time) {
	if g.quiet || gr.N() < planEstimateNodes {
		return
	}
	st := cost.Delta2(gr, tau, opt, flagName)
	so := time.Since(began).Seconds()
	if so+st.Seconds > longStep.Seconds() {
		g.say(fmt.Sprintf("estimated %s for the sensitivity (%s so far, %s %s: %s)",
			seconds(so+st.Seconds), seconds(so), st.Step, seconds(st.Seconds), st.Model))
	}
}

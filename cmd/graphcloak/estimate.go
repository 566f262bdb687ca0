package main

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/cost"
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

// seconds renders a modelled time (cost.Human).
func seconds(s float64) string { return cost.Human(s) }

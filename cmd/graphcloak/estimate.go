package main

import (
	"io"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/internal/textreport"
)

// The --estimate of every command (GDS's .estimate): what each long step
// is modelled to take, computing, writing and charging nothing. Each step
// has one model, in package cost, shared by every command that runs the
// step and by the estimate line a command prints before it; here they are
// only printed.

// printWorkEstimate prints a command's estimate: its JSON, or a table
// (textreport.WorkEstimate).
func printWorkEstimate(g *globalOptions, out io.Writer, e *cost.Estimate) error {
	e.Finish()
	if g.output == "json" {
		return printJSON(out, e)
	}
	textreport.WorkEstimate(out, e)
	return nil
}

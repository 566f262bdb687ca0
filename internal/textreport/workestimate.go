package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/cost"
)

// WorkEstimate prints a command's --estimate (release, locate, load …):
// the modelled steps' sum on the graph, then each step's row. Nothing was
// computed, written or charged, and the header says so.
func WorkEstimate(out io.Writer, e *cost.Estimate) {
	fmt.Fprintf(out, "%s on graph %s (%d nodes, %d relationships): estimated %s for its modelled steps; nothing computed, written or charged\n",
		e.Command, e.Graph, e.NodeCount, e.Edges, cost.Human(e.Seconds))
	for _, s := range e.Steps {
		fmt.Fprintf(out, "  %-26s %-12s %s\n", s.Step, cost.Human(s.Seconds), s.Model)
	}
}

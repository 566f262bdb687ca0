package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/cost"
)

// PlanEstimate prints a plan's estimate (plan --estimate): the modelled
// steps' sum, each step's row, and the simulated releases when they are
// not modelled.
func PlanEstimate(out io.Writer, e cost.PlanEstimate) {
	fmt.Fprintf(out, "plan of graph %s (%d nodes, %d relationships) at τ = %g: estimated %s for its modelled steps; nothing computed\n",
		e.Graph, e.NodeCount, e.Edges, e.Tau, cost.Human(e.Seconds))
	for _, s := range e.Steps {
		fmt.Fprintf(out, "  %-20s %-12s %s\n", s.Step, cost.Human(s.Seconds), s.Model)
	}
	if e.Simulations > 0 && !e.SimulationsModelled() {
		fmt.Fprintf(out, "  and up to %d simulated releases (not modelled: their progress lines give an ETA as they run)\n", e.Simulations)
	}
}

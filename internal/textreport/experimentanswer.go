package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/experiment"
)

// AnswerExperiment prints experiment graph --private-answer's forecasts
// (Forecasts) under a line naming the graph, the trials per row and the
// seed that reproduces them.
func AnswerExperiment(out io.Writer, r *experiment.AnswerReport, trials int, seed uint64) error {
	fmt.Fprintf(out, "experiment graph %s, private answer, %d trials per row (seed %d)\n", r.Graph, trials, seed)
	return Forecasts(out, r.Forecasts)
}

package sourceview

import (
	"fmt"

	"github.com/graphcloak/graphcloak/internal/demo"
	"github.com/graphcloak/graphcloak/internal/plotting"
)

// Demo draws a demo run to path: each node coloured by its weight under
// the demo's estimator, the communities with their probability, the
// planted source ringed and the noise verdict, if any, stated.
func Demo(path string, run *demo.Result) error {
	s, loc := run.Summary, run.Locate
	v := OfRanking(run.Graph, run.Partition, s.Report, loc.Estimator, loc.Estimate.Weights(), run.Source)
	v.Title = fmt.Sprintf("%s: where is the source?", s.Graph)
	v.Verdict = loc.NoiseReason
	v.Caption = Caption(s.Epsilon, s.Delta, s.Tau, s.Sigma)
	return plotting.GraphPicture(path, v)
}

package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/internal/demo"
)

// Demo prints a demo's story — the graph and its communities, the planted
// source, the release and the estimator — then its ranking table with the
// source's community marked.
func Demo(out io.Writer, run *demo.Result) error {
	s := run.Summary
	rep := s.Report
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships, %d communities (%s)\n",
		s.Graph, s.NodeCount, s.RelationshipCount, len(rep.Communities), run.Communities)
	fmt.Fprintf(out, "planted source: node %s in community %s; τ = %g\n", s.Source, s.SourceCommunity, s.Tau)
	fmt.Fprintf(out, "released with ε = %g, δ = %g: Δ2 = %.6g (%s), σ = %.6g, ρ = %.4g\n",
		s.Epsilon, s.Delta, s.Delta2, s.SensitivityMethod, s.Sigma, s.Rho)
	fmt.Fprintf(out, "recovered from the private values only (%s estimator, %s):\n\n", s.Estimator, s.Status)
	return Ranking(out, rep, map[int]bool{run.SourceCommunity(): true})
}

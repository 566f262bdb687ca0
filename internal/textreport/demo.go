package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/internal/demo"
)

// Demo prints a demo's story — the graph and its communities, the planted
// source, the release (and what a δ ≥ 1/n means) and the estimator — then
// the noise verdict its picture states, if any, and its ranking table
// with the source's community marked.
func Demo(out io.Writer, run *demo.Result) error {
	s := run.Summary
	rep := s.Report
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships, %d communities (%s)\n",
		s.Graph, s.NodeCount, s.RelationshipCount, len(rep.Communities), run.Communities)
	fmt.Fprintf(out, "planted source: node %s in community %s; τ = %g\n", s.Source, s.SourceCommunity, s.Tau)
	fmt.Fprintf(out, "released with ε = %g, δ = %g: Δ2 = %.6g (%s), σ = %.6g, ρ = %.4g\n",
		s.Epsilon, s.Delta, s.Delta2, s.SensitivityMethod, s.Sigma, s.Rho)
	if n := float64(s.NodeCount); s.Delta*n >= 1 {
		fmt.Fprintf(out, "δ = %g is a demonstration's, a weak guarantee: at δ ≥ 1/n (1/%d) ε may fail outright with probability δ — release defaults to δ = 1e-05\n",
			s.Delta, s.NodeCount)
	}
	fmt.Fprintf(out, "recovered from the private values only (%s estimator, %s):\n", s.Estimator, s.Status)
	if s.NoiseReason != "" {
		fmt.Fprintf(out, "WARNING: %s (as the picture says): the ← below marks where the source was planted, which this ranking does not tell\n", s.NoiseReason)
	}
	fmt.Fprintln(out)
	return Ranking(out, rep, map[int]bool{run.SourceCommunity(): true})
}

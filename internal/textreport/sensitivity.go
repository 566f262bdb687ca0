package textreport

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// Sensitivity prints a Δ2 computation (or a merge of shards) as a table:
// Δ2 and what kind of value it is, its slack (and, for a proven upper
// bound, the range the true Δ2 lies in), what it was computed on, κ2 and
// the time taken.
func Sensitivity(out io.Writer, r sensitivity.Report) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	kind := "proven upper bound"
	if r.Exact {
		kind = "exact to slack, rounded up"
	}
	if !r.Certified {
		kind = "NOT CERTIFIED"
	}
	fmt.Fprintf(tw, "delta2\t%.17g\t(%s)\n", r.Delta2, kind)
	fmt.Fprintf(tw, "slack\t%.3g (relative %.3g)\n", r.Slack, r.RelativeSlack)
	if r.Certified && !r.Exact {
		// A relative slack near 1 hides how loose the bound is; the
		// bracket's ratio says how much larger σ may be than needed.
		lower := math.Max(r.Delta2-r.Slack, 0)
		fmt.Fprintf(tw, "proven range\t[%.6g, %.6g]", lower, r.Delta2)
		if lower > 0 {
			fmt.Fprintf(tw, " (the bound is at most %.3g× the true Δ2)", r.Delta2/lower)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "method\t%s\n", r.Method)
	if r.Reused {
		fmt.Fprintf(tw, "reused\tfrom the store: an exact certificate kept by an earlier run (not computed)\n")
	}
	if r.Graph != "" {
		fmt.Fprintf(tw, "graph\t%s\n", r.Graph)
	}
	fmt.Fprintf(tw, "nodes\t%d\n", r.Nodes)
	fmt.Fprintf(tw, "edges\t%d\n", r.Edges)
	fmt.Fprintf(tw, "components\t%d\n", r.Components)
	if len(r.Edge) == 2 {
		fmt.Fprintf(tw, "maximising pair\t%v – %v\n", r.Edge[0], r.Edge[1])
	}
	if r.Tau != nil {
		fmt.Fprintf(tw, "tau\t%g\n", *r.Tau)
	}
	if r.N != nil {
		fmt.Fprintf(tw, "n, m\t%d, %d\n", *r.N, *r.M)
	}
	fmt.Fprintf(tw, "alpha\t%g\n", r.Alpha)
	switch k := float64(r.Kappa2); {
	case math.IsNaN(k):
		fmt.Fprintf(tw, "kappa2\tnot computed\n")
	default:
		fmt.Fprintf(tw, "kappa2\t%.6g\n", k)
	}
	fmt.Fprintf(tw, "seconds\t%.3f\n", r.Seconds)
	return tw.Flush()
}

// SensitivityMerge prints a merge of a sharded Δ2's partial certificates
// (r.Shards of them): its table (Sensitivity) and where the certificate
// was saved.
func SensitivityMerge(out io.Writer, r sensitivity.Report, saved string) error {
	if err := Sensitivity(out, r); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "merged %d shards into %s\n", r.Shards, saved)
	return err
}

// SensitivityShard prints a sharded run's share (r.Shard must be set) as
// a table; next, when not empty, is the row saying what to run next with
// the partial certificate.
func SensitivityShard(out io.Writer, r sensitivity.Report, next string) error {
	s := r.Shard
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "shard\t%d/%d (%s)\n", s.Index, s.Count, s.Scheme)
	switch {
	case s.Empty:
		fmt.Fprintf(tw, "share\tnone: the method (%s) is not divided, shard 0 computes it\n", "whole")
	default:
		fmt.Fprintf(tw, "shard's edges\tΔ2 term ≤ %.17g\n", r.Delta2)
		fmt.Fprintf(tw, "lower bound\tΔ2 ≥ %.17g (whole graph)\n", s.Lower)
		fmt.Fprintf(tw, "complete\t%v\n", s.Complete)
		fmt.Fprintf(tw, "method\t%s\n", r.Method)
	}
	if len(r.Edge) == 2 {
		fmt.Fprintf(tw, "maximising pair\t%v – %v\n", r.Edge[0], r.Edge[1])
	}
	fmt.Fprintf(tw, "saved\t%s (a partial certificate: certifies nothing until merged)\n", s.Save)
	if next != "" {
		fmt.Fprintf(tw, "next\t%s\n", next)
	}
	fmt.Fprintf(tw, "seconds\t%.3f\n", r.Seconds)
	return tw.Flush()
}

// SensitivityPlan prints a dry run's report: the method Δ2 would be
// computed by and its modelled time and memory, and what the time budget
// does to it.
func SensitivityPlan(out io.Writer, p sensitivity.PlanReport) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "dry run\tnothing computed\n")
	fmt.Fprintf(tw, "graph\t%s\n", p.Graph)
	fmt.Fprintf(tw, "nodes\t%d\n", p.Nodes)
	fmt.Fprintf(tw, "edges\t%d\n", p.Edges)
	fmt.Fprintf(tw, "components\t%d\n", p.Components)
	fmt.Fprintf(tw, "tau\t%g\n", p.Tau)
	if p.SlowModesFirst {
		fmt.Fprintf(tw, "then\tpanels, when more than 256 slow modes are needed\n")
	}
	fmt.Fprintf(tw, "method\t%s\n", p.Method)
	if p.Reused {
		fmt.Fprintf(tw, "reused\tfrom the store: a certificate that verifies for this graph, τ and α (not computed)\n")
	}
	fmt.Fprintf(tw, "time estimate\t%.3g s (2-core reference machine)\n", p.SecondsEstimate)
	fmt.Fprintf(tw, "memory estimate\t%.3g MiB\n", float64(p.BytesEstimate)/(1<<20))
	if p.TimeBudgetSeconds > 0 {
		fmt.Fprintf(tw, "time budget\t%s\n", BudgetVerdict(p.TimeBudgetSeconds, p.SecondsEstimate, p.Method))
	}
	return tw.Flush()
}

package textreport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
)

// Row adds a row to a two-column table: a key and its value.
type Row func(key string, value any)

// Release prints a release's summary as a two-column table: a dry run's
// plan first (what it would do, the budget now and after), then the
// graph, Δ2 and how it was computed, the smoothing, σ, ρ and the
// mechanism, the forecasts, the noise, the ledger and what was written.
// name says how the reader calls the parameters a row names.
func Release(out io.Writer, s *job.ReleaseSummary, name func(errkind.Param) string) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\n", k, v) }
	if s.DryRun {
		row("dry run", "nothing written, charged or drawn")
		dryRunRows(row, s, name)
	}
	if s.AlreadyPublished {
		row("already published", fmt.Sprintf("epoch %s was charged and published before: nothing charged or drawn now", s.Epoch))
	}
	if s.RunID != "" {
		row("run id", s.RunID)
	}
	row("graph", s.Graph)
	row("values from", s.ValuesFrom)
	row("nodes", s.NodeCount)
	row("relationships", s.RelationshipCount)
	sensitivityRows(row, s)
	smoothRows(row, s.Smooth, s.SmoothChoices, name)
	if s.SensitivityMethod != "" {
		row("sensitivity method", s.SensitivityMethod)
	}
	row("σ", fmt.Sprintf("%.6g", s.Sigma))
	row("ρ (zCDP)", fmt.Sprintf("%.6g", s.Rho))
	row("ε, δ", fmt.Sprintf("%g, %g", s.Epsilon, s.Delta))
	row("mechanism", s.Mechanism)
	if e := s.ExactNode; e != nil {
		subject := "one protected unit"
		if e.Mass != e.Alpha {
			subject = "a source of " + massUnits(e.Mass)
		}
		row("exact node", ExactNode(*e, subject))
	}
	ForecastRows(row, s.Forecast, name)
	row("noise", map[bool]string{true: "keyed (ChaCha20)", false: "crypto/rand"}[s.Keyed])
	row("ledger", fmt.Sprintf("%s (scope %s)", s.Ledger, s.Scope))
	if s.Epoch != "" {
		row("epoch", s.Epoch)
	}
	if s.ReleaseID != "" {
		row("release id", s.ReleaseID)
	}
	if s.WriteProperty != "" {
		row("written", fmt.Sprintf("%d properties to %s", s.NodePropertiesWritten, s.WriteProperty))
	}
	if s.Out != "" {
		row("release file", s.Out)
	}
	if !s.DryRun {
		row("compute / write", fmt.Sprintf("%d ms / %d ms", s.ComputeMillis, s.WriteMillis))
	}
	return tw.Flush()
}

// sensitivityRows print how Δ2 is computed (method, memory, time) and
// its value.
func sensitivityRows(row Row, s *job.ReleaseSummary) {
	if s.Estimate != nil {
		row("method", s.Estimate.Method)
		row("memory estimate", fmt.Sprintf("%.1f MiB", float64(s.Estimate.BytesEstimate)/(1<<20)))
		row("time estimate", fmt.Sprintf("%.2g s", s.Estimate.SecondsEstimate))
		if s.TimeBudgetSeconds > 0 {
			row("time budget", BudgetVerdict(s.TimeBudgetSeconds, s.Estimate.SecondsEstimate, s.Estimate.Method))
		}
	}
	d2 := fmt.Sprintf("%.6g", s.Delta2)
	if !s.Delta2Exact {
		d2 += " (upper bound)"
	}
	row("Δ2", d2)
}

// smoothRows print the extra diffusion τ′ and, for automatic smoothing,
// the candidates' forecasts it was chosen by.
func smoothRows(row Row, smooth float64, choices []job.SmoothChoice, name func(errkind.Param) string) {
	if smooth > 0 || len(choices) > 0 {
		row("smoothing τ′", fmt.Sprintf("%g (released: exp(−τ′L)·readings, Δ2 and the model at τ+τ′)", smooth))
	}
	for _, c := range choices {
		mark := ""
		if c.Smooth == smooth {
			mark = "  ← chosen"
		}
		row(fmt.Sprintf("  %s auto τ′=%g", name(job.ParamSmooth), c.Smooth), fmt.Sprintf("Δ2 %.4g, σ %.4g, right community %.3f [%.3f, %.3f]%s",
			c.Delta2, c.Sigma, c.CommunityAccuracy, c.Low, c.High, mark))
	}
}

// dryRunRows print what the release would do now (the plan's step) and
// the budget it would be charged from.
func dryRunRows(row Row, s *job.ReleaseSummary, name func(errkind.Param) string) {
	switch s.Step {
	case "fresh":
		row("release would", fmt.Sprintf("charge ρ = %.6g to scope %s, epoch %s, and draw", s.Rho, s.Scope, s.Epoch))
	case "wait":
		row("release would", fmt.Sprintf("wait (up to %s) for run %s, which is publishing epoch %s, then decide again", name(job.ParamWait), s.RunID, s.Epoch))
	case "resume":
		row("release would", fmt.Sprintf("resume run %s: write the values it stored for epoch %s (no charge, no draw)", s.RunID, s.Epoch))
	case "already published":
		row("release would", "do nothing (exit 0): the epoch is already published")
	}
	if b := s.Balance; b != nil {
		row("budget now", b.String())
		if s.Step == "fresh" {
			row("budget after", fmt.Sprintf("%.6g left", max(b.RhoRemaining-s.Rho, 0)))
		}
	}
}

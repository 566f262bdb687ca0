package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestReleaseDryRunSteps: a dry run says what the release would do for
// each step of its plan, naming the wait parameter when it would wait, and
// the budget after a fresh charge; it shows no timings.
func TestReleaseDryRunSteps(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{"fresh", "charge ρ = 0.25 to scope s, epoch e, and draw"},
		{"wait", "wait (up to " + paramName(job.ParamWait) + ") for run r"},
		{"resume", "resume run r"},
		{"already published", "do nothing"},
	} {
		s := &job.ReleaseSummary{DryRun: true, Step: c.step, RunID: "r", Scope: "s", Epoch: "e", Rho: 0.25,
			Balance: &privacy.Balance{Scope: "s", RhoRemaining: 1}}
		var b bytes.Buffer
		if err := Release(&b, s, paramName); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if got := lineWith(out, "release would"); !strings.Contains(got, c.want) {
			t.Errorf("step %s: %q, want %q", c.step, got, c.want)
		}
		if after := lineWith(out, "budget after"); (after != "") != (c.step == "fresh") || (after != "" && !strings.Contains(after, "0.75 left")) {
			t.Errorf("step %s: budget after %q", c.step, after)
		}
		if strings.Contains(out, "compute / write") {
			t.Errorf("step %s: a dry run shows timings:\n%s", c.step, out)
		}
	}
}

// TestReleaseRows: a release shows Δ2 (marked when only a bound), the
// smoothing candidates with the chosen one marked, the forecasts' rows
// between the mechanism and the noise, and its timings.
func TestReleaseRows(t *testing.T) {
	s := &job.ReleaseSummary{Graph: "karate", Delta2: 0.5, Delta2Exact: false, Sigma: 2, Smooth: 1,
		Estimate:          &graphcloak.ReleaseEstimate{Method: "columns", SecondsEstimate: 100},
		TimeBudgetSeconds: 1,
		SmoothChoices:     []job.SmoothChoice{{Smooth: 0, CommunityAccuracy: 0.3}, {Smooth: 1, CommunityAccuracy: 0.4}},
		Forecast:          &job.Forecasts{PerNode: &forecast.Forecast{CommunityAccuracy: 0.4}, Answer: &forecast.Forecast{Mechanism: "geometric"}},
		ComputeMillis:     12, WriteMillis: 3}
	var b bytes.Buffer
	if err := Release(&b, s, paramName); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if got := rowOf(out, "Δ2"); !strings.Contains(got, "0.5 (upper bound)") {
		t.Errorf("Δ2 row %q", got)
	}
	if got := lineWith(out, "time budget"); !strings.Contains(got, "upper bound") {
		t.Errorf("time budget row %q", got)
	}
	chosen := lineWith(out, "← chosen")
	if !strings.Contains(chosen, paramName(job.ParamSmooth)+" auto τ′=1") || strings.Count(out, "← chosen") != 1 {
		t.Errorf("smoothing candidates:\n%s", out)
	}
	if i, j := strings.Index(out, "\nforecast"), strings.Index(out, "\nnoise"); i < 0 || i > j || strings.Index(out, "\nmechanism") > i {
		t.Errorf("forecast rows not between mechanism and noise:\n%s", out)
	}
	if !strings.Contains(out, "12 ms / 3 ms") {
		t.Errorf("no timings:\n%s", out)
	}
}

// rowOf is the row of table out whose key is key ("" when none is).
func rowOf(out, key string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, key+"  ") {
			return l
		}
	}
	return ""
}

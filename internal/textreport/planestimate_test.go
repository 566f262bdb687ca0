package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/cost"
)

// A plan's estimate is one row a step under its header, and the
// simulated releases are named only when no step prices them.
func TestPlanEstimateRows(t *testing.T) {
	steps := []cost.Step{{Step: "sensitivity", Seconds: 3, Model: "Δ2"}, {Step: "answer audit", Seconds: 1, Model: "pass"}}
	for _, c := range []struct {
		steps     []cost.Step
		unpriced  bool
		wantLines int
	}{
		{steps, true, 4},
		{append(steps, cost.Step{Step: "per-node forecasts", Seconds: 2}), false, 4},
	} {
		var b bytes.Buffer
		PlanEstimate(&b, cost.PlanEstimate{Graph: "karate", NodeCount: 34, Edges: 78, Tau: 1, Steps: c.steps, Seconds: 4, Simulations: 400})
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != c.wantLines || !strings.HasPrefix(lines[0], "plan of graph karate (34 nodes, 78 relationships) at τ = 1: estimated ") {
			t.Errorf("%d steps: %d lines, want %d:\n%s", len(c.steps), len(lines), c.wantLines, b.String())
		}
		if got := strings.Contains(b.String(), "up to 400 simulated releases"); got != c.unpriced {
			t.Errorf("%d steps: simulated releases named %v, want %v:\n%s", len(c.steps), got, c.unpriced, b.String())
		}
		for i, s := range c.steps {
			if !strings.HasPrefix(strings.TrimSpace(lines[1+i]), s.Step) {
				t.Errorf("row %d: %q, want step %q", i, lines[1+i], s.Step)
			}
		}
	}
}

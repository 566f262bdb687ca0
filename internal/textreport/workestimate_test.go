package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/cost"
)

// A command's estimate is its header with the sum, then one row a step in
// the step's order, each with its own time and model.
func TestWorkEstimateRows(t *testing.T) {
	e := &cost.Estimate{Command: "release --dry-run", Graph: "karate", NodeCount: 34, Edges: 78, Seconds: 90,
		Steps: []cost.Step{{Step: "load the graph", Seconds: 30, Model: "measured"}, {Step: "sensitivity", Seconds: 60, Model: "Δ2 dense"}}}
	var b bytes.Buffer
	WorkEstimate(&b, e)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1+len(e.Steps) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 1+len(e.Steps), b.String())
	}
	want := "release --dry-run on graph karate (34 nodes, 78 relationships): estimated " + cost.Human(90) + " for its modelled steps"
	if !strings.HasPrefix(lines[0], want) {
		t.Errorf("header %q, want it to begin %q", lines[0], want)
	}
	for i, s := range e.Steps {
		row := lines[1+i]
		if !strings.HasPrefix(strings.TrimSpace(row), s.Step) || !strings.Contains(row, cost.Human(s.Seconds)) || !strings.HasSuffix(row, s.Model) {
			t.Errorf("row %d: %q, want step %q, %s, model %q", i, lines[1+i], s.Step, cost.Human(s.Seconds), s.Model)
		}
	}
}

package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/demo"
)

// TestDemo: the story names the graph, its community count and where the
// communities come from, the planted source and the release's numbers,
// then the ranking marks the source's community on its row only.
func TestDemo(t *testing.T) {
	rep := &community.Report{Communities: []community.Ranked{{ID: 1, Name: "1", Rank: 1, Share: 0.7, Size: 17}, {ID: 0, Name: "0", Rank: 2, Share: 0.3, Size: 17}}}
	run := &demo.Result{Communities: "planted", Partition: []int{0, 0, 1}, Source: 2,
		Summary: &demo.Summary{Graph: "karate", NodeCount: 34, RelationshipCount: 78, Source: "34", SourceCommunity: "1",
			Tau: 1, Epsilon: 8, Delta: 1e-5, Delta2: 0.25, SensitivityMethod: "dense", Sigma: 0.125, Rho: 2, Estimator: "posterior", Status: "ok", Report: rep}}
	var b bytes.Buffer
	if err := Demo(&b, run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, want := range []string{
		"graph karate: 34 nodes, 78 relationships, 2 communities (planted)",
		"planted source: node 34 in community 1; τ = 1",
		"released with ε = 8, δ = 1e-05: Δ2 = 0.25 (dense), σ = 0.125, ρ = 2",
		"recovered from the private values only (posterior estimator, ok):",
		"",
	} {
		if lines[i] != want {
			t.Errorf("line %d: %q, want %q", i, lines[i], want)
		}
	}
	if !strings.HasPrefix(lines[6], "1 ") || !strings.HasSuffix(strings.TrimSpace(lines[6]), "← true source") || strings.Contains(lines[7], "true source") {
		t.Errorf("the source's community is not the one marked:\n%s", b.String())
	}
}

// The demo's text says what its picture says: a noise verdict is stated
// before the ranking that marks the planted source; and a δ ≥ 1/n is
// called what it is. Before, stdout marked "← true source" with no word
// of the picture's "noise-dominated … not a finding", and δ = 0.1 passed
// without one.
func TestDemoSaysItsVerdictAndDelta(t *testing.T) {
	rep := &community.Report{Communities: []community.Ranked{{ID: 1, Name: "1", Rank: 1, Share: 0.6, Size: 250}, {ID: 0, Name: "0", Rank: 2, Share: 0.4, Size: 250}}}
	for _, c := range []struct {
		delta float64
		noise string
	}{{0.1, "noise-dominated: the top community is only 1.2× its prior — not a finding"}, {1e-6, ""}} {
		run := &demo.Result{Communities: "planted", Partition: []int{0, 1}, Source: 0,
			Summary: &demo.Summary{Graph: "sbm", NodeCount: 500, RelationshipCount: 3097, Source: "0", SourceCommunity: "0",
				Tau: 2, Epsilon: 4, Delta: c.delta, Delta2: 0.04, Sigma: 0.05, Rho: 0.3, Estimator: "posterior", Status: "solved", Report: rep, NoiseReason: c.noise}}
		var b bytes.Buffer
		if err := Demo(&b, run); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		warned := strings.Contains(out, "WARNING: "+c.noise) && strings.Index(out, "WARNING") < strings.Index(out, "← true source")
		if warned != (c.noise != "") {
			t.Errorf("noise verdict %q: warned %v before the marked ranking:\n%s", c.noise, warned, out)
		}
		if said := strings.Contains(out, "δ = 0.1 is a demonstration's, a weak guarantee: at δ ≥ 1/n (1/500)"); said != (c.delta*500 >= 1) {
			t.Errorf("δ = %g on 500 nodes: weak δ said %v:\n%s", c.delta, said, out)
		}
	}
}

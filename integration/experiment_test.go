package integration

import (
	"encoding/json"
	"testing"
)

// TestExperimentFromNeo4j: "experiment graph --graph neo4j" reads the
// projection and scores against the communities stored in the database.
// With negligible noise every planted source is recovered, so every trial
// must name the source's stored community; the counts must be the fixture's.
func TestExperimentFromNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{20, 20}, 0.35, 0.03)
	f.load(t, d)
	e := newE2E(t, s, d, f)

	args := append([]string{"experiment", "graph"}, e.projectionFlags()...)
	args = append(args, "--communities", "property:community", "--tau", "0.5", "--sigma", "1e-6",
		"--trials", "30", "--seed", "3", "-o", "json")
	r := runCLI(t, s.Password, args...)
	if r.Code != 0 {
		t.Fatalf("experiment graph --graph neo4j: exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	var got struct {
		Trials            int     `json:"trials"`
		Nodes             int     `json:"nodeCount"`
		Edges             int     `json:"relationshipCount"`
		Communities       int     `json:"communityCount"`
		CommunityAccuracy float64 `json:"communityAccuracy"`
		CommunitySource   string  `json:"communitySource"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	if got.Trials != 30 || got.Nodes != len(f.Keys) || got.Edges != len(f.Rels) || got.Communities != 2 {
		t.Fatalf("got %+v; fixture has %d nodes, %d relationships, 2 communities", got, len(f.Keys), len(f.Rels))
	}
	if got.CommunityAccuracy != 1 || got.CommunitySource != "property:community" {
		t.Fatalf("community accuracy %v from %q, want 1 from property:community", got.CommunityAccuracy, got.CommunitySource)
	}

	// A community property that no node has is refused (exit 3: the database lacks it), not a silent Louvain fallback.
	bad := append([]string{"experiment", "graph"}, e.projectionFlags()...)
	bad = append(bad, "--communities", "property:noSuchProperty", "--trials", "2")
	if r := runCLI(t, s.Password, bad...); r.Code != 3 {
		t.Fatalf("missing community property: exit %d, want 3\nstderr: %s", r.Code, r.Stderr)
	}
}

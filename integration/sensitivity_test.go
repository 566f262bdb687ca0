package integration

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestSensitivityFromNeo4j: "sensitivity --graph neo4j" on a weighted
// fixture certifies the same Δ2 as the library on the graph built directly
// from the fixture's relationships (an oracle that never touches Neo4j or
// the connector), within the two computations' stated slacks.
func TestSensitivityFromNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{25, 25}, 0.3, 0.04)
	f.load(t, d)

	edges := make([]laplacian.Edge, len(f.Rels))
	for i, r := range f.Rels {
		edges[i] = laplacian.Edge{U: int32(r.U), V: int32(r.V), Weight: r.W}
	}
	g, err := laplacian.FromEdges(len(f.Keys), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const tau = 0.7
	want, err := sensitivity.Graph(g, tau, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}

	e := newE2E(t, s, d, f)
	args := append([]string{"sensitivity"}, e.projectionFlags()...)
	r := runCLI(t, s.Password, append(args, "--tau", "0.7", "-o", "json")...)
	if r.Code != 0 {
		t.Fatalf("sensitivity --graph neo4j: exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	var got struct {
		Delta2    float64 `json:"delta2"`
		Slack     float64 `json:"slack"`
		Certified bool    `json:"certified"`
		Nodes     int     `json:"nodeCount"`
		Edges     int     `json:"relationshipCount"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	if got.Nodes != g.N() || got.Edges != g.NumEdges() || !got.Certified {
		t.Fatalf("got %+v, want %d nodes, %d edges, certified", got, g.N(), g.NumEdges())
	}
	if math.Abs(got.Delta2-want.Delta2) > got.Slack+want.Slack+1e-12 {
		t.Fatalf("Δ2 from Neo4j %v (slack %v), from the fixture %v (slack %v)", got.Delta2, got.Slack, want.Delta2, want.Slack)
	}

	// A wrong password is refused before any work: exit 3, the job's
	// configuration (a retry, exit 4, cannot help).
	if r := runCLI(t, "not-the-password", append(args, "--tau", "0.7")...); r.Code != 3 {
		t.Fatalf("wrong password: exit %d, want 3\nstderr: %s", r.Code, r.Stderr)
	}
}

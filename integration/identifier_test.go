package integration

import (
	"encoding/json"
	"testing"
)

// TestUnicodeIdentifiers: names Neo4j accepts in backticks —
// a Unicode label, a relationship type with a hyphen and a space — were
// refused by the identifier rule; the real server reads them through the
// always-quoted projection.
func TestUnicodeIdentifiers(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.Label = uniqueName(t, "Raum_ü")
	f.RelType = uniqueName(t, "TÜR-zu 1")
	f.load(t, d)
	e := newE2E(t, s, d, f)
	args := append([]string{"sensitivity"}, e.projectionFlags()...)
	r := runCLI(t, s.Password, append(args, "--tau", "0.5", "-o", "json")...)
	if r.Code != 0 {
		t.Fatalf("sensitivity on label %q, type %q: exit %d\nstderr: %s", f.Label, f.RelType, r.Code, r.Stderr)
	}
	var got struct {
		Nodes int `json:"nodeCount"`
		Edges int `json:"relationshipCount"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	if got.Nodes != len(f.Keys) || got.Edges != len(f.expectedEdges()) {
		t.Fatalf("read %d nodes, %d edges; the fixture has %d, %d", got.Nodes, got.Edges, len(f.Keys), len(f.expectedEdges()))
	}
}

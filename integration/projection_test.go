package integration

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseRunProjection: after a release on a
// weighted projection, locate and unmask --release-run R read the
// release's projection from its run record when given none (before they
// read every node of the database and exited 3), a projection that
// differs is refused naming the flag that differs (before: two sha256
// prefixes), and --mode stream prints every node and writes nothing.
func TestReleaseRunProjection(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	label, typ, scope := "Room34", "DOOR34", "projection-34"
	cleanup := func() {
		dropLabel(t, d, label)
		deleteScopeRuns(t, d, scope)
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge OR l:GraphcloakScopeLease) AND l.scope = $s DELETE l", map[string]any{"s": scope})
	}
	cleanup()
	t.Cleanup(cleanup)
	conn := []string{"--uri", s.URI, "--user", s.User}
	cli := func(args ...string) cliResult { return runCLI(t, s.Password, append(args, conn...)...) }
	edges, readings := filepath.Join(root, "examples", "rooms.csv"), filepath.Join(root, "examples", "rooms-readings.csv")
	key := filepath.Join(t.TempDir(), "noise.key")
	weighted := []string{"--node-labels", label, "--relationship-types", typ, "--node-key-property", "roomId",
		"--relationship-weight-property", "conductance"}
	for _, args := range [][]string{
		append([]string{"load", "--edges", edges}, weighted...),
		{"budget", "--init", "--ledger", "neo4j", "--scope", scope, "--epsilon-total", "10", "--delta-total", "1e-5"},
	} {
		if r := cli(args...); r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
	}
	if r := runCLI(t, s.Password, "keygen", "--out", key); r.Code != 0 {
		t.Fatalf("keygen: exit %d: %s", r.Code, r.Stderr)
	}
	r := cli(append([]string{"release", "--graph", "neo4j", "--values", readings, "--ledger", "neo4j", "--scope", scope,
		"--key", key, "--epsilon", "1", "--delta", "1e-6", "-o", "json"}, weighted...)...)
	var rel struct{ RunID string }
	if err := json.Unmarshal([]byte(r.Stdout), &rel); r.Code != 0 || err != nil || rel.RunID == "" {
		t.Fatalf("release: exit %d (%v): %s", r.Code, err, r.Stderr)
	}
	type located struct {
		RunID     string
		NodeCount int
		Nodes     []struct{ Key string }
	}
	r = cli("locate", "--graph", "neo4j", "--release-run", rel.RunID, "-o", "json")
	var loc located
	if err := json.Unmarshal([]byte(r.Stdout), &loc); r.Code != 0 || err != nil || loc.NodeCount != 12 || loc.RunID == "" {
		t.Fatalf("locate --release-run without projection flags: exit %d, %d nodes (%v): %s", r.Code, loc.NodeCount, err, r.Stderr)
	}
	unweighted := weighted[:6]
	r = cli(append([]string{"locate", "--graph", "neo4j", "--release-run", rel.RunID}, unweighted...)...)
	if r.Code != 3 || !strings.Contains(r.Stderr, "--relationship-weight-property") || !strings.Contains(r.Stderr, "conductance") {
		t.Errorf("locate on the unweighted projection: exit %d, %q; want 3 naming --relationship-weight-property", r.Code, r.Stderr)
	}
	r = cli("unmask", "--key", key, "--graph", "neo4j", "--release-run", rel.RunID, "-o", "json")
	var un struct{ Rows []struct{ Key string } }
	if err := json.Unmarshal([]byte(r.Stdout), &un); r.Code != 0 || err != nil || len(un.Rows) != 12 {
		t.Errorf("unmask --release-run without projection flags: exit %d, %d rows (%v): %s", r.Code, len(un.Rows), err, r.Stderr)
	}
	// Stream mode: every node on stdout, no run record, no property.
	before := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'locate'}) RETURN count(r)", map[string]any{"s": scope})[0].Values[0]
	r = cli("locate", "--graph", "neo4j", "--release-run", rel.RunID, "--mode", "stream", "--mass-property", "mass34", "-o", "json")
	loc = located{}
	if err := json.Unmarshal([]byte(r.Stdout), &loc); r.Code != 0 || err != nil || len(loc.Nodes) != 12 || loc.RunID != "" {
		t.Errorf("locate --mode stream: exit %d, %d nodes, run %q (%v): %s", r.Code, len(loc.Nodes), loc.RunID, err, r.Stderr)
	}
	after := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'locate'}) RETURN count(r)", map[string]any{"s": scope})[0].Values[0]
	r = cli(append([]string{"communities", "--graph", "neo4j", "--mode", "stream", "--write-property", "community34"}, weighted...)...)
	if r.Code != 0 || strings.Count(r.Stdout, "\n") != 13 {
		t.Errorf("communities --mode stream: exit %d, stdout %q: %s", r.Code, r.Stdout, r.Stderr)
	}
	written := query(t, d, "MATCH (n:"+label+") WHERE n.mass34 IS NOT NULL OR n.community34 IS NOT NULL RETURN count(n)", nil)[0].Values[0]
	if before != after || written != int64(0) {
		t.Errorf("stream mode wrote: locate records %v → %v, %v nodes with a streamed property", before, after, written)
	}
	// Write mode with GDS's --write-property name writes the communities.
	if r := cli(append([]string{"communities", "--graph", "neo4j", "--write-property", "community34"}, weighted...)...); r.Code != 0 {
		t.Errorf("communities --write-property: exit %d: %s", r.Code, r.Stderr)
	}
	if n := query(t, d, "MATCH (n:"+label+") WHERE n.community34 IS NOT NULL RETURN count(n)", nil)[0].Values[0]; n != int64(12) {
		t.Errorf("communities --write-property community34 wrote %v nodes, want 12", n)
	}
}

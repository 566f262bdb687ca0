package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEveryCommandOneDriver: one Neo4j driver per process (DESIGN.md),
// for every command that reaches Neo4j, counted in the process that runs
// it (runCLIBatch: connector.DriversOpened before and after each command
// line). Each command below succeeds against a real server on one driver
// — plan with the graph and the ledger both in Neo4j among them, which
// read the graph on one driver and the ledger on a second before the
// stores were opened once for both. TestServeOneDriver counts serve's.
func TestEveryCommandOneDriver(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{12, 12}, 0.5, 0.05)
	diffuseObs(t, f, 3, 0.5, 20)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	loadLabel := uniqueName(t, "DriverLoad")
	t.Cleanup(func() {
		deleteScopeRuns(t, d, e.scope)
		dropLabel(t, d, loadLabel)
	})
	dir := t.TempDir()
	key := filepath.Join(dir, "noise.key")
	if r := runCLI(t, s.Password, "keygen", "--out", key); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	edges := write("edges.csv", "source,target,weight\nd1,d2,1\nd2,d3,2\n")
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j"}
	ledger := []string{"--ledger", "neo4j", "--scope", e.scope}
	with := func(head []string, tail ...string) []string {
		return append(append(append([]string(nil), head...), e.projectionFlags()...), tail...)
	}
	run := func(name string, argvs ...[]string) []cliResult {
		t.Helper()
		rs := runCLIBatch(t, s.Password, argvs)
		for i, r := range rs {
			if r.Code != 0 || r.Drivers != 1 {
				t.Errorf("%s (%d): exit %d, %d drivers; want exit 0 on one driver\nstdout: %s\nstderr: %s", name, i, r.Code, r.Drivers, r.Stdout, r.Stderr)
			}
		}
		return rs
	}
	rel := run("release", e.releaseArgs("epoch-drivers", "--key", key))[0]
	var sum struct{ RunID string }
	if err := json.Unmarshal([]byte(rel.Stdout), &sum); err != nil || sum.RunID == "" {
		t.Fatalf("release -o json: %v\n%s", err, rel.Stdout)
	}
	run("the other commands",
		e.locateArgs(sum.RunID, "--forecast-trials", "5"),
		with([]string{"locate"}, append([]string{"--private-answer", "--value-property", "obs", "--communities", "property:community",
			"--tau", "0.5", "--epsilon", "1", "--epoch", "answer-drivers", "--dry-run", "-o", "json"}, ledger...)...),
		with([]string{"unmask", "--key", key}, "--release-run", sum.RunID, "-o", "json"),
		with([]string{"plan"}, append([]string{"--tau", "0.5", "--trials", "10", "--modes", "per-node", "--communities", "property:community", "-o", "json"}, ledger...)...),
		with([]string{"experiment", "graph"}, "--communities", "property:community", "--tau", "0.5", "--sigma", "1e-6", "--trials", "5", "-o", "json"),
		with([]string{"sensitivity"}, "--tau", "0.5", "-o", "json"),
		with([]string{"communities"}, "--mode", "stream", "-o", "json"),
		append(append([]string{"budget"}, conn...), append(ledger, "-o", "json")...),
		append(append([]string{"runs"}, conn...), "--scope", e.scope, "-o", "json"),
		append(append([]string{"load", "--edges", edges, "--node-labels", loadLabel, "--relationship-types", "DRIVER_LOAD",
			"--node-key-property", "key", "--relationship-weight-property", "weight"}, conn...), "-o", "json"),
	)
}

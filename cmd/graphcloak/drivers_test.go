package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestNeo4jCommandsTryOneDriver: every command that reaches Neo4j does
// so through the one driver of the stores it opens (DESIGN.md: one
// driver per process), counted by connector.DriversOpened — which counts
// a driver whether or not it connects. Without a database each command
// line below, valid up to the database, makes exactly one attempt on an
// unreachable URI and exits 4 (unreachable): the hook counts the attempt,
// and no command tries a second driver after its first failed. Past a
// successful connection only a real server can show a command opening a
// second driver: the integration test TestEveryCommandOneDriver counts
// the same commands there.
func TestNeo4jCommandsTryOneDriver(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	edges := write("edges.csv", "source,target\na,b\nb,c\n")
	readings := write("readings.csv", "node,value\na,1\nb,0\nc,0\n")
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	k, err := privacy.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "noise.key")
	if err := privacy.WriteKeyFile(key, k); err != nil {
		t.Fatal(err)
	}
	down := []string{"--uri", "bolt://127.0.0.1:1"}
	signing := filepath.Join(dir, "coordinator.key")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "keygen", "--signing", "--out", signing); code != 0 {
		t.Fatalf("keygen --signing: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"release", []string{"release", "--graph", "neo4j", "--value-property", "obs", "--write-property", "out", "--ledger", "neo4j"}},
		{"release, file ledger", []string{"release", "--graph", "neo4j", "--values", readings, "--write-property", "out", "--ledger", ledger}},
		{"release, graph from a file", []string{"release", "--graph", "file:" + edges, "--values", readings, "--out", filepath.Join(dir, "r.json"), "--ledger", "neo4j"}},
		{"locate", []string{"locate", "--graph", "neo4j", "--released-property", "out", "--sigma", "1"}},
		{"locate --release-run", []string{"locate", "--graph", "neo4j", "--release-run", "latest"}},
		{"locate --private-answer", []string{"locate", "--private-answer", "--graph", "neo4j", "--value-property", "obs", "--ledger", "neo4j"}},
		{"plan", []string{"plan", "--graph", "neo4j", "--ledger", "neo4j", "--scope", "default"}},
		{"plan, ledger in neo4j", []string{"plan", "--graph", "karate", "--trials", "2", "--modes", "per-node", "--ledger", "neo4j", "--scope", "default"}},
		{"experiment graph", []string{"experiment", "graph", "--graph", "neo4j"}},
		{"sensitivity", []string{"sensitivity", "--graph", "neo4j"}},
		{"audit", []string{"audit", "--graph", "neo4j", "--save", filepath.Join(dir, "audit.json")}},
		{"communities", []string{"communities", "--graph", "neo4j"}},
		{"load", []string{"load", "--edges", edges, "--values", readings, "--value-property", "obs", "--node-labels", "Room", "--relationship-types", "DOOR", "--node-key-property", "roomId"}},
		{"budget", []string{"budget", "--ledger", "neo4j"}},
		{"runs", []string{"runs"}},
		{"runs prune", []string{"runs", "prune", "--keep", "1"}},
		{"serve", []string{"serve", "--schedule", "@every 1h", "--listen", "", "--node-labels", "Person", "--node-key-property", "id",
			"--write-property", "out", "--ledger", "neo4j", "--values", readings}},
		{"serve --private-answer", []string{"serve", "--schedule", "@every 1h", "--listen", "", "--node-labels", "Person", "--node-key-property", "id",
			"--ledger", "neo4j", "--values", readings, "--private-answer"}},
		{"epoch open", []string{"epoch", "open", "--graph", "neo4j", "--out", filepath.Join(dir, "e.order"), "--signing-key", signing,
			"--epoch", "e1", "--ledger", "neo4j"}},
		{"unmask", []string{"unmask", "--graph", "neo4j", "--release-run", "latest", "--key", key}},
	} {
		before := connector.DriversOpened()
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, append(c.args, down...)...)
		if n := connector.DriversOpened() - before; n != 1 || code != exitDBUnreachable {
			t.Errorf("%s: %d drivers, exit %d; want one driver, exit %d (unreachable)\n%s", c.name, n, code, exitDBUnreachable, stderr)
		}
	}
}

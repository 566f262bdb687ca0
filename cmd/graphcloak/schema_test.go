package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestJSONSchemas: every documented JSON output validates
// against its schema in docs/schemas/, and so do JSON errors. The schemas
// require camelCase names (propertyNames), schemaVersion 1, node keys as
// strings; a renamed or retyped field fails here.
func TestJSONSchemas(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	readings, ledger, key := filepath.Join(dir, "readings.csv"), filepath.Join(dir, "l.json"), filepath.Join(dir, "noise.key")
	if code := runArgs(context.Background(), []string{"keygen", "--out", key}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("keygen: exit %d", code)
	}
	// A keyed release first: unmask reads it.
	var relOut, relErr strings.Builder
	if code := runArgs(context.Background(), []string{"release", "--graph", "karate", "--values", readings,
		"--out", filepath.Join(dir, "r2.json"), "--ledger", ledger, "--key", key, "--time-budget", "1m", "-o", "json"}, &relOut, &relErr); code != 0 {
		t.Fatalf("release: exit %d: %s", code, relErr.String())
	}
	validate(t, "release", relOut.String())
	var lineOut strings.Builder // the line form of sensitivity shares its schema
	if code := runArgs(context.Background(), []string{"sensitivity", "--line", "--n", "20", "--m", "10", "--tau", "0.05", "-o", "json"}, &lineOut, io.Discard); code != 0 {
		t.Fatalf("sensitivity --line: exit %d", code)
	}
	validate(t, "sensitivity", lineOut.String())
	// A singular line kernel: kappa2 is "+Inf", as its schema says.
	lineOut.Reset()
	if code := runArgs(context.Background(), []string{"sensitivity", "--line", "--n", "20", "--m", "10", "--tau", "5", "-o", "json"}, &lineOut, io.Discard); code != 0 {
		t.Fatalf("sensitivity --line: exit %d", code)
	}
	if !strings.Contains(lineOut.String(), `"kappa2": "+Inf"`) {
		t.Fatalf("the singular kernel's kappa2 is not \"+Inf\":\n%s", lineOut.String())
	}
	validate(t, "sensitivity", lineOut.String())
	// Named projections: save then list, in the test's own config file.
	var projOut strings.Builder
	if code := runArgs(context.Background(), []string{"projection", "save", "rooms", "--node-labels", "Room", "--relationship-types", "DOOR",
		"--node-key-property", "roomId", "-o", "json"}, &projOut, io.Discard); code != 0 {
		t.Fatalf("projection save: exit %d", code)
	}
	validate(t, "projection", projOut.String())
	cases := map[string][]string{
		"locate":               {"locate", "--graph", "karate", "--release", rel},
		"sensitivity":          {"sensitivity", "--graph", "karate"},
		"sensitivity-dry-run":  {"sensitivity", "--graph", "karate", "--dry-run", "--time-budget", "1m"},
		"calibrate":            {"calibrate", "--sensitivity", "1"},
		"budget":               {"budget", "--ledger", filepath.Join(dir, "l.json")},
		"version":              {"version"},
		"config-show":          {"config", "show"},
		"keygen":               {"keygen", "--out", filepath.Join(dir, "k")},
		"keygen-signing":       {"keygen", "--signing", "--out", filepath.Join(dir, "coord.key")},
		"keygen-master":        {"keygen", "--master", key, "--nodes", karateNodes(t, dir), "--out-dir", filepath.Join(dir, "sensors"), "--mac-csv", filepath.Join(dir, "macs.csv")},
		"communities":          {"communities", "--graph", "karate"},
		"communities-estimate": {"communities", "--graph", "karate", "--estimate"},
		"projection":           {"projection", "list"},
		"experiment-sensitivity": {"experiment", "sensitivity", "--line", "--m-values", "10,20",
			"--n-values", "10,20", "--tau-values", "0.1,0.2"},
		"unmask":           {"unmask", "--release", filepath.Join(dir, "r2.json"), "--key", key},
		"demo":             {"demo", "--plot", filepath.Join(dir, "demo.png")},
		"experiment-line":  {"experiment", "line", "--trials", "2"},
		"experiment-graph": {"experiment", "graph", "--graph", "karate", "--trials", "2"},
		// README's multi-ε sweep (it failed its schema)
		"experiment-graph-sweep": {"experiment", "graph", "--graph", "karate", "--epsilon", "1,4", "--tau", "1,2", "--trials", "2"},
		"audit":                  {"audit", "--graph", "karate", "--tau", "1", "--save", filepath.Join(dir, "answer.json")},
		"plan": {"plan", "--graph", "karate", "--epsilon", "1,4", "--trials", "10", "--target-accuracy", "0.6",
			"--epsilon-total", "8", "--delta-total", "1e-6", "--answer-epsilon", "4"},
		"plan-estimate": {"plan", "--graph", "karate", "--epsilon", "1,4", "--estimate"},
		"estimate":      {"release", "--graph", "karate", "--values", "-", "--dry-run", "--estimate"},
		"locate-private-answer": {"locate", "--graph", "karate", "--private-answer", "--values",
			karateSourceReadings(t, filepath.Join(dir, "source.csv"), 3, 0.2), "--ledger", ledger,
			"--epsilon", "1", "--tau", "0.2", "--forecast-trials", "10"},
	}
	for name, args := range cases {
		var out, errb strings.Builder
		if code := runArgs(context.Background(), append(args, "-o", "json"), &out, &errb); code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, errb.String())
			continue
		}
		validate(t, name, out.String())
	}
	// The other --estimate outputs share release's schema.
	for _, args := range [][]string{
		{"locate", "--graph", "karate", "--release", rel, "--estimate"},
		{"locate", "--graph", "karate", "--private-answer", "--values", "-", "--estimate"},
		{"load", "--edges", karateEdges(t, dir), "--node-labels", "P", "--relationship-types", "K", "--node-key-property", "id", "--estimate"},
	} {
		var out, errb strings.Builder
		if code := runArgs(context.Background(), append(args, "-o", "json"), &out, &errb); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errb.String())
			continue
		}
		validate(t, "estimate", out.String())
	}
	files, _ := filepath.Glob("../../docs/schemas/*.schema.json")
	if len(files) != len(cases)+7 { // + release, error, runs and runs-prune (Neo4j: integration/runs_test.go), load (integration/load_test.go), epoch-open and collect (TestLocalSchemas)
		t.Errorf("docs/schemas has %d schemas, the test covers %d", len(files), len(cases)+7)
	}
	for _, args := range [][]string{{"calibrate", "--sensitivity", "-1"}, {"experiment", "foo"}, {"locate"}} {
		var out, errb strings.Builder
		runArgs(context.Background(), append(args, "-o", "json"), &out, &errb)
		validate(t, "error", errb.String())
	}
	// The schemas themselves are JSON with the documented header.
	for _, f := range files {
		var m map[string]any
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &m); err != nil || m["title"] == nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// karateNodes writes karate's node keys, one per line (keygen --nodes).
func karateNodes(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for k := 1; k <= 34; k++ {
		fmt.Fprintln(&b, k)
	}
	path := filepath.Join(dir, "karate-nodes.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// karateEdges writes karate's edge list (load --edges).
func karateEdges(t *testing.T, dir string) string {
	t.Helper()
	g, _, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	keys := g.Keys()
	g.ForEachEdge(func(i, j int, _ float64) { fmt.Fprintf(&b, "%v,%v\n", keys[i], keys[j]) })
	path := filepath.Join(dir, "karate-edges.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

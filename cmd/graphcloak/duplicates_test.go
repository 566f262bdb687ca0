package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// writeKarate writes karate's 78 edges as an edge list, once each or in
// both directions (each edge then its reverse, as a directed export).
func writeKarate(t *testing.T, path string, bothWays bool) {
	t.Helper()
	g, _ := laplacian.Karate()
	var b strings.Builder
	b.WriteString("source,target\n")
	g.ForEachEdge(func(i, j int, _ float64) {
		fmt.Fprintf(&b, "%s,%s\n", g.Key(i), g.Key(j))
		if bothWays {
			fmt.Fprintf(&b, "%s,%s\n", g.Key(j), g.Key(i))
		}
	})
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSensitivityEdgeListBothWays: sensitivity on karate written in both
// directions gives the single listing's Δ2 and says on stderr how many
// rows it merged and by which rule (and in -o json); --duplicate-edges sum
// reads the multigraph, whose Δ2 is smaller; a pair given with two weights
// is refused with exit 3 naming the pair, both weights and the flag.
func TestSensitivityEdgeListBothWays(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	once, both := filepath.Join(dir, "once.csv"), filepath.Join(dir, "both.csv")
	writeKarate(t, once, false)
	writeKarate(t, both, true)
	run := func(args ...string) (code int, stdout, stderr string) {
		var out, errOut strings.Builder
		code = runArgs(context.Background(), append([]string{"sensitivity", "--tau", "1"}, args...), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	type report struct {
		Delta2         float64           `json:"delta2"`
		Edges          int               `json:"relationshipCount"`
		DuplicateEdges *laplacian.Merges `json:"duplicateEdges"`
	}
	delta2 := func(args ...string) (report, string) {
		t.Helper()
		code, out, errOut := run(append(args, "-o", "json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return r, errOut
	}
	single, errOnce := delta2("--graph", "file:"+once)
	if single.DuplicateEdges != nil || strings.Contains(errOnce, "merged") {
		t.Errorf("the single listing reports merges: %+v, stderr %q", single.DuplicateEdges, errOnce)
	}
	merged, errBoth := delta2("--graph", "file:"+both)
	if merged.Delta2 != single.Delta2 || merged.Edges != 78 {
		t.Errorf("both ways: Δ2 %v on %d edges, want the single listing's %v on 78", merged.Delta2, merged.Edges, single.Delta2)
	}
	want := laplacian.Merges{Rows: 156, Pairs: 78, Merged: 78, Rule: "merge"}
	if merged.DuplicateEdges == nil || *merged.DuplicateEdges != want {
		t.Errorf("duplicateEdges %+v, want %+v", merged.DuplicateEdges, want)
	}
	note := "156 rows, 78 pairs listed twice merged as one edge each: 78 edges (--duplicate-edges merge)"
	if !strings.Contains(errBoth, note) {
		t.Errorf("stderr does not say %q:\n%s", note, errBoth)
	}
	// The table says it too, on stderr (stdout is the report).
	code, out, errOut := run("--graph", "file:"+both)
	if code != 0 || !strings.Contains(errOut, note) || strings.Contains(out, note) {
		t.Errorf("table: exit %d, stderr %q, stdout %q", code, errOut, out)
	}

	// Parallel edges by the operator's word: every weight doubles, which
	// is the graph at 2τ, so Δ2 drops (0.1375 against 0.3564).
	sum, errSum := delta2("--graph", "file:"+both, "--duplicate-edges", "sum")
	at2tau, _ := delta2("--graph", "file:"+once, "--tau", "2")
	if d := sum.Delta2 - at2tau.Delta2; d > 1e-12 || d < -1e-12 {
		t.Errorf("sum: Δ2 %v, want the single listing's at 2τ %v", sum.Delta2, at2tau.Delta2)
	}
	if !strings.Contains(errSum, "summed as parallel edges") || !strings.Contains(errSum, "--duplicate-edges sum") {
		t.Errorf("sum: stderr %q", errSum)
	}

	// Weights that disagree need the operator's word.
	conflict := filepath.Join(dir, "conflict.csv")
	if err := os.WriteFile(conflict, []byte("source,target,weight\na,b,1\nb,c,1\nb,a,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("--graph", "file:"+conflict)
	for _, w := range []string{"(a, b)", "weight 1", "weight 2", "--duplicate-edges sum"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("refusal does not name %q: %s", w, errOut)
		}
	}
	if code != exitBadInput || out != "" {
		t.Errorf("refusal: exit %d (want %d), stdout %q", code, exitBadInput, out)
	}
	if code, _, errOut := run("--graph", "file:"+conflict, "--duplicate-edges", "sum"); code != 0 {
		t.Errorf("sum reads the disagreeing pair as parallel edges: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run("--graph", "file:"+both, "--duplicate-edges", "reject"); code != exitBadInput || !strings.Contains(errOut, "duplicate edge") {
		t.Errorf("reject: exit %d: %s", code, errOut)
	}
	if code, _, _ := run("--graph", "file:"+both, "--duplicate-edges", "max"); code == 0 {
		t.Error("an unknown rule was accepted")
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEdgeListSelfLoopsSkipped (issue 77, item 6): an edge list with
// self-loops is read as every source reads one — the loops skipped, their
// nodes kept — where main refused it (exit 3) while Neo4j dropped its
// loops silently. karate with three loops (one on a node of no other row)
// gives karate plus that isolated node's Δ2, component count, communities
// and exported file and fingerprint; stderr says how many loops and names
// one; sensitivity and communities count them in their JSON; --quiet says
// nothing.
func TestEdgeListSelfLoopsSkipped(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	plain, loops := filepath.Join(dir, "plain.csv"), filepath.Join(dir, "loops.csv")
	writeKarate(t, plain, false)
	body, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.SplitN(string(body), "\n", 2) // the header, then the edges
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(plain, string(body)+"35,\n")
	write(loops, rows[0]+"\n1,1\n"+rows[1]+"34,34,2\n35,35\n")
	run := func(args ...string) (stdout, stderr string) {
		t.Helper()
		var out, errOut strings.Builder
		if code := runArgs(context.Background(), args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String(), errOut.String()
	}
	read := func(args ...string) (loopSummary, string) {
		t.Helper()
		out, errOut := run(append(args, "-o", "json")...)
		var s loopSummary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return s, errOut
	}
	note := "graph file:" + loops + ": 3 self-loops skipped, e.g. (1, 1): a self-loop does not change the Laplacian L = D − W"
	for _, cmd := range [][]string{{"sensitivity", "--tau", "1"}, {"communities"}} {
		want, errPlain := read(append(cmd, "--graph", "file:"+plain)...)
		got, errLoops := read(append(cmd, "--graph", "file:"+loops)...)
		if got.SelfLoops != 3 || want.SelfLoops != 0 {
			t.Errorf("%s: selfLoopsSkipped %d (without loops %d), want 3 (0)", cmd[0], got.SelfLoops, want.SelfLoops)
		}
		got.SelfLoops = 0
		if got.Nodes != 35 || got.Edges != 78 || !got.same(want) {
			t.Errorf("%s: with loops %+v, without %+v: want the same graph, 35 nodes, 78 edges", cmd[0], got, want)
		}
		if !strings.Contains(errLoops, note) || strings.Contains(errPlain, "self-loop") {
			t.Errorf("%s: stderr with loops %q, without %q; want %q once", cmd[0], errLoops, errPlain, note)
		}
	}
	if _, errOut := run("sensitivity", "--tau", "1", "--graph", "file:"+loops, "--quiet"); errOut != "" {
		t.Errorf("--quiet: stderr %q", errOut)
	}

	// export writes no loop: the file and fingerprint of the graph without them.
	exp := func(from string) (fingerprint, file string) {
		t.Helper()
		to := from + ".out"
		out, _ := run("export", "--graph", "file:"+from, "--out", to)
		b, err := os.ReadFile(to)
		if err != nil {
			t.Fatal(err)
		}
		_, fingerprint, _ = strings.Cut(out, "\n")
		return fingerprint, string(b)
	}
	outPlain, filePlain := exp(plain)
	outLoops, fileLoops := exp(loops)
	if fileLoops != filePlain || outLoops != outPlain || !strings.Contains(outPlain, "fingerprint") {
		t.Errorf("export with loops:\n%s\n%s\nwithout:\n%s\n%s", outLoops, fileLoops, outPlain, filePlain)
	}
}

// loopSummary is what TestEdgeListSelfLoopsSkipped reads of a
// sensitivity report or a communities summary.
type loopSummary struct {
	Delta2     float64 `json:"delta2"`
	Nodes      int     `json:"nodeCount"`
	Edges      int     `json:"relationshipCount"`
	Components int     `json:"components"`
	Modularity float64 `json:"modularity"`
	Sizes      []int   `json:"communitySizes"`
	SelfLoops  int     `json:"selfLoopsSkipped"`
}

// same says whether s and o describe one graph and one result, Δ2 to
// rounding.
func (s loopSummary) same(o loopSummary) bool {
	d := s.Delta2 - o.Delta2
	return s.Nodes == o.Nodes && s.Edges == o.Edges && s.Components == o.Components && d <= 1e-12 && -d <= 1e-12 &&
		s.Modularity == o.Modularity && slices.Equal(s.Sizes, o.Sizes) && s.SelfLoops == o.SelfLoops
}

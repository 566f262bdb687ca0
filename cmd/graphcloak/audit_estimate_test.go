package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestAuditEstimate: audit --estimate computes and writes nothing and
// prices the pass by the cost model of docs/sharding.md — steps =
// (S + C + 2R)·K·(2|E| + n), S = n sources, C ≤ n of them correlated,
// R = 256 for the refit sample (sources: S + R), K
// the degree of the certifier's loose Chebyshev action (built here
// independently: τ = 1, tolerance 1e−5·T) — at a measured rate; its JSON
// validates against the audit schema, and seconds = steps × ns a step. A
// checkpoint beside --save lowers S by the sources it holds.
func TestAuditEstimate(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the installation key
	dir := t.TempDir()
	const spec = "pa:n=3000,m=3,seed=2"
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := expm.NewChebyshev(g.Laplacian(), 1, 1e-2*1e-5)
	if err != nil {
		t.Fatal(err)
	}
	n, E, K := g.N(), g.NumEdges(), ch.Degree()
	save := filepath.Join(dir, "answer.json")
	estimate := func() (string, map[string]any) {
		var out, errb strings.Builder
		if code := runArgs(context.Background(), []string{"audit", "--graph", spec, "--tau", "1", "--save", save, "--estimate", "-o", "json"}, &out, &errb); code != 0 {
			t.Fatalf("audit --estimate: exit %d: %s", code, errb.String())
		}

		var r struct{ Estimate map[string]any }
		if err := json.Unmarshal([]byte(out.String()), &r); err != nil || r.Estimate == nil {
			t.Fatalf("no estimate: %v\n%s", err, out.String())
		}
		return out.String(), r.Estimate
	}
	doc, e := estimate()
	validate(t, "audit", doc)
	S := n + 256
	C, _ := e["correlated"].(float64)
	if want := (float64(S+256) + C) * float64(K) * float64(2*E+n); e["steps"] != want || e["sources"] != float64(S) || e["chebyshevDegree"] != float64(K) || C < 0 || C > float64(n) {
		t.Errorf("steps %v, sources %v, correlated %v, K %v; want %g = (%d + C + 2·256)·%d·(2·%d + %d)", e["steps"], e["sources"], C, e["chebyshevDegree"], want, n, K, E, n)
	}
	if s, ns := e["seconds"].(float64), e["nanosPerStep"].(float64); !(ns > 0) || s != e["steps"].(float64)*ns*1e-9 {
		t.Errorf("seconds %v at %v ns a step for %v steps", s, ns, e["steps"])
	}
	if _, err := os.Stat(save); !os.IsNotExist(err) {
		t.Errorf("audit --estimate wrote %s", save)
	}
	// A checkpoint of this audit holding 3 blocks: 96 sources fewer.
	var out, errb strings.Builder
	if code := runArgs(context.Background(), []string{"audit", "--graph", spec, "--tau", "1", "--save", save, "--estimate"}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "estimated ") || !strings.Contains(out.String(), "nothing computed") {
		t.Errorf("audit --estimate as a table: exit %d: %q %s", code, out.String(), errb.String())
	}
	writeCheckpoint(t, g, save, 3)
	if _, e := estimate(); e["sources"] != float64(S-96) {
		t.Errorf("with a checkpoint of 3 blocks: %v sources, want %d", e["sources"], S-96)
	}
}

// writeCheckpoint writes beside save a checkpoint of this version's audit
// of g at τ = 1 holding blocks 0 … k−1 (their numbers made up); audit
// runs on the graph in key order.
func writeCheckpoint(t *testing.T, g *laplacian.Graph, save string, k int) {
	t.Helper()
	g, _, err := laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := answer.OpenCheckpoint(answer.CheckpointPath(save), g, 1, recovery.CertifierOptions{}, answer.Cache{Software: buildinfo.Read().String()})
	if err != nil {
		t.Fatal(err)
	}
	for b := range k {
		cp.Add(recovery.PassBlock{Tol: recovery.DefaultFitTolerance, Block: b, Norms: make([]float64, 32)})
	}
	if err := cp.Save(); err != nil {
		t.Fatal(err)
	}
}

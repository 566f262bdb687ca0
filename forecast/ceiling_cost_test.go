package forecast

import (
	"context"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// twoIslands is two preferential-attachment graphs side by side (no edge
// between them) and an isolated node, with Leiden's communities of each
// and the isolated node's own: communities in another component are
// never reached.
func twoIslands(t *testing.T) (*laplacian.Graph, []int) {
	t.Helper()
	a, pa, ka := leidenCase(t, "pa:n=300,m=2,seed=1")
	b, pb, _ := leidenCase(t, "pa:n=200,m=3,seed=2")
	var edges []laplacian.Edge
	a.ForEachEdge(func(u, v int, _ float64) { edges = append(edges, laplacian.Edge{U: int32(u), V: int32(v), Weight: 1}) })
	b.ForEachEdge(func(u, v int, _ float64) {
		edges = append(edges, laplacian.Edge{U: int32(a.N() + u), V: int32(a.N() + v), Weight: 1})
	})
	n := a.N() + b.N() + 1
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	part := append(append([]int(nil), pa...), make([]int, b.N()+1)...)
	for v, c := range pb {
		part[a.N()+v] = ka + c
	}
	part[n-1] = 1000
	return g, part
}

// ceilingCase is a graph and a partition the ceilings' oracles check.
type ceilingCase struct {
	g    *laplacian.Graph
	part []int
}

// ceilingCases are a connected preferential-attachment graph with its
// Leiden communities and twoIslands.
func ceilingCases(t *testing.T) []ceilingCase {
	g0, p0, _ := leidenCase(t, "pa:n=400,m=2,seed=1")
	g1, p1 := twoIslands(t)
	return []ceilingCase{{g0, p0}, {g1, p1}}
}

// TestCountCeilingWork: the work counted from the graph's structure is the
// work the ceiling's solver does — the star matrix's entries as dualBound
// builds them (the star rows and the far members), the routings' pairs and
// their reachable ones as newRoutes routes them, Σ deg² enumerated —
// on a connected graph and on one of several components.
func TestCountCeilingWork(t *testing.T) {
	for _, c := range ceilingCases(t) {
		g, part := c.g, c.part
		w := CountCeilingWork(g, part)
		entries := len(farMembers(g, part))
		starConstraints(g, part, 1, 0, func(int, float64) {}, func(int, int, float64) { entries++ })
		members := communityMembers(part)
		r := newRoutes(context.Background(), nil, g, part, members, make([]float64, g.N()), 1)
		routed := 0
		for _, v := range r.origin {
			if v >= 0 {
				routed++
			}
		}
		twoHop := 0.0
		for v := range g.N() {
			twoHop += g.Degree(v) * g.Degree(v)
		}
		if w.StarEntries != float64(entries) || w.Reachable != float64(routed) || w.Pairs != float64(len(r.origin)) || w.TwoHop != twoHop || !w.Routed {
			t.Errorf("n = %d, k = %d: counted %+v; the solver has %d star entries, %d routed of %d pairs, Σ deg² = %g",
				g.N(), len(members), w, entries, routed, len(r.origin), twoHop)
		}
		if s := w.Seconds; !(s > 0) || math.IsInf(s, 0) {
			t.Errorf("n = %d: %g s", g.N(), s)
		}
	}
}

package laplacian

import (
	"math"
	"testing"
)

// TestPermutePreservesGraph checks that the Cuthill–McKee order is a
// permutation and that Permute renames without changing anything else:
// every edge u–v of weight w of g is the edge inv[u]–inv[v] of weight w of
// the result, degrees follow their nodes, and the edge and component counts
// stay — on a weighted graph with several components and an isolated node (4),
// and on an unweighted hub graph.
func TestPermutePreservesGraph(t *testing.T) {
	weighted, err := FromEdges(9, nil, []Edge{
		{0, 5, 0.001}, {5, 7, 1000}, {7, 0, 2.5}, {2, 3, 1}, {3, 8, 4}, {1, 6, 3},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pa, err := PreferentialAttachment(300, 3, 11)
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*Graph{"weighted": weighted, "pa": pa} {
		perm := g.CuthillMcKee()
		if len(perm) != g.N() {
			t.Fatalf("%s: %d positions for %d nodes", name, len(perm), g.N())
		}
		inv := make([]int, g.N())
		for i := range inv {
			inv[i] = -1
		}
		for p, v := range perm {
			if inv[v] >= 0 {
				t.Fatalf("%s: node %d placed twice", name, v)
			}
			inv[v] = p
		}
		h := g.Permute(perm)
		if h.N() != g.N() || h.NumEdges() != g.NumEdges() || h.MaxDegree() != g.MaxDegree() {
			t.Fatalf("%s: sizes changed: n %d→%d, m %d→%d", name, g.N(), h.N(), g.NumEdges(), h.NumEdges())
		}
		if gc, _ := g.Components(); func() bool { hc, _ := h.Components(); return hc != gc }() {
			t.Fatalf("%s: component count changed", name)
		}
		edges := 0
		g.ForEachEdge(func(u, v int, w float64) {
			edges++
			if got := h.EdgeWeight(inv[u], inv[v]); got != w {
				t.Errorf("%s: edge %d–%d weight %g became %g", name, u, v, w, got)
			}
		})
		h.ForEachEdge(func(int, int, float64) { edges-- })
		if edges != 0 {
			t.Errorf("%s: edge lists differ in length by %d", name, edges)
		}
		for v := range g.N() {
			if math.Float64bits(h.Degree(inv[v])) != math.Float64bits(g.Degree(v)) {
				t.Errorf("%s: degree of node %d changed", name, v)
			}
			cols, _ := h.Neighbors(inv[v])
			for k := 1; k < len(cols); k++ {
				if cols[k-1] >= cols[k] {
					t.Fatalf("%s: row %d not sorted", name, inv[v])
				}
			}
		}
	}
}

// TestCuthillMcKeeIsBreadthFirst checks the order on a path numbered
// out of order: breadth-first from an end (degree 1) walks the path, so
// consecutive positions are adjacent.
func TestCuthillMcKeeIsBreadthFirst(t *testing.T) {
	labels := []int32{4, 0, 6, 2, 5, 1, 3} // the path 4–0–6–2–5–1–3
	var edges []Edge
	for k := 1; k < len(labels); k++ {
		edges = append(edges, Edge{labels[k-1], labels[k], 1})
	}
	g, err := FromEdges(len(labels), nil, edges, Options{})
	if err != nil {
		t.Fatal(err)
	}
	perm := g.CuthillMcKee()
	for p := 1; p < len(perm); p++ {
		if g.EdgeWeight(int(perm[p-1]), int(perm[p])) != 1 {
			t.Fatalf("positions %d and %d (nodes %d, %d) are not adjacent: %v", p-1, p, perm[p-1], perm[p], perm)
		}
	}
}

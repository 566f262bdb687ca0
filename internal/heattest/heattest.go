// Package heattest holds test oracles for heat diffusion on graphs that
// are independent of graphcloak's own expm package.
package heattest

import (
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// PadeHeat returns exp(−τL) by gonum's Padé scaling and squaring
// (mat.Exp): independent of the eigendecomposition and of the Chebyshev
// action graphcloak uses.
func PadeHeat(g *laplacian.Graph, tau float64) *mat.Dense {
	n := g.N()
	m := mat.NewDense(n, n, nil)
	for i, d := range g.Degrees() {
		m.Set(i, i, -tau*d)
	}
	g.ForEachEdge(func(i, j int, w float64) {
		m.Set(i, j, tau*w)
		m.Set(j, i, tau*w)
	})
	var e mat.Dense
	e.Exp(m)
	return &e
}

// HubArmsPath is an adversarial graph for source recovery: a hub with 14
// arms of 3 nodes and an 80-node path hanging off it (123 nodes).
func HubArmsPath(t testing.TB) *laplacian.Graph {
	var edges []laplacian.Edge
	n := 1
	link := func(u int) {
		edges = append(edges, laplacian.Edge{U: int32(u), V: int32(n), Weight: 1})
		n++
	}
	for a := 0; a < 14; a++ {
		link(0)
		link(n - 1)
		link(n - 1)
	}
	link(0)
	for k := 1; k < 80; k++ {
		link(n - 1)
	}
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// BenchGraph loads the edge list at path (a benchmark's real graph,
// named by its GRAPHCLOAK_BENCH_GRAPH), skipping the benchmark without one.
func BenchGraph(tb testing.TB, path string) *laplacian.Graph {
	if path == "" {
		tb.Skip("GRAPHCLOAK_BENCH_GRAPH names an edge list")
	}
	g, err := laplacian.LoadCSV(path, laplacian.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

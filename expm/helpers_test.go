package expm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// randomGraph returns G(n, M) with M ≈ n·deg/2 distinct edges; weights are
// uniform in [0.1, 2) when weighted, else 1.
func randomGraph(tb testing.TB, n int, deg float64, weighted bool, seed uint64) *laplacian.Graph {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	m := int(float64(n) * deg / 2)
	seen := make(map[[2]int32]bool, m)
	edges := make([]laplacian.Edge, 0, m)
	for len(edges) < m {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v {
			continue
		}
		if u > v {
			u, v = v, u
		}
		if seen[[2]int32{u, v}] {
			continue
		}
		seen[[2]int32{u, v}] = true
		w := 1.0
		if weighted {
			w = 0.1 + 1.9*rng.Float64()
		}
		edges = append(edges, laplacian.Edge{U: u, V: v, Weight: w})
	}
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func mustGraph(tb testing.TB, n int, edges []laplacian.Edge) *laplacian.Graph {
	tb.Helper()
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func completeGraph(tb testing.TB, n int) *laplacian.Graph {
	var e []laplacian.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			e = append(e, laplacian.Edge{U: int32(i), V: int32(j), Weight: 1})
		}
	}
	return mustGraph(tb, n, e)
}

// starGraph has hub 0 and leaves 1..N−1.
func starGraph(tb testing.TB, N int) *laplacian.Graph {
	var e []laplacian.Edge
	for i := 1; i < N; i++ {
		e = append(e, laplacian.Edge{U: 0, V: int32(i), Weight: 1})
	}
	return mustGraph(tb, N, e)
}

func pathGraph(tb testing.TB, n int) *laplacian.Graph {
	var e []laplacian.Edge
	for i := 0; i+1 < n; i++ {
		e = append(e, laplacian.Edge{U: int32(i), V: int32(i + 1), Weight: 1})
	}
	return mustGraph(tb, n, e)
}

// padeExp returns exp(−τL) by gonum's Padé scaling-and-squaring
// (mat.Dense.Exp, Higham 2005), an algorithm independent of ours.
func padeExp(g *laplacian.Graph, tau float64) *mat.Dense {
	L := g.Laplacian().Dense()
	n := g.N()
	m := mat.NewDense(n, n, nil)
	m.Scale(-tau, L)
	var out mat.Dense
	out.Exp(m)
	return &out
}

func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	d := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = math.Max(d, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return d
}

// spectralNorm returns ‖m‖₂ as the largest singular value (mat.Norm(m, 2)
// is the Frobenius norm in gonum).
func spectralNorm(tb testing.TB, m mat.Matrix) float64 {
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDNone) {
		tb.Fatal("SVD failed")
	}
	return svd.Values(nil)[0]
}

package recovery

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Test helpers: small graph generators and the analytic Gaussian σ,
// written here so the tests do not depend on other packages' work in
// progress.

func mustGraph(t testing.TB, n int, edges []laplacian.Edge) *laplacian.Graph {
	t.Helper()
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func pathEdges(n int) []laplacian.Edge {
	var e []laplacian.Edge
	for i := 0; i+1 < n; i++ {
		e = append(e, laplacian.Edge{U: int32(i), V: int32(i + 1), Weight: 1})
	}
	return e
}

// sbmEdges draws a stochastic block model with blocks of the given sizes.
func sbmEdges(sizes []int, pin, pout float64, rng *rand.Rand) (int, []laplacian.Edge, []int) {
	n := 0
	var block []int
	for b, s := range sizes {
		n += s
		for i := 0; i < s; i++ {
			block = append(block, b)
		}
	}
	var e []laplacian.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			p := pout
			if block[i] == block[j] {
				p = pin
			}
			if rng.Float64() < p {
				e = append(e, laplacian.Edge{U: int32(i), V: int32(j), Weight: 1})
			}
		}
	}
	return n, e, block
}

// randomEdges draws a connected random graph: a random spanning tree plus
// extra random edges.
func randomEdges(n, extra int, rng *rand.Rand) []laplacian.Edge {
	seen := map[[2]int]bool{}
	var e []laplacian.Edge
	add := func(u, v int) {
		if u == v {
			return
		}
		if u > v {
			u, v = v, u
		}
		if seen[[2]int{u, v}] {
			return
		}
		seen[[2]int{u, v}] = true
		e = append(e, laplacian.Edge{U: int32(u), V: int32(v), Weight: 1})
	}
	for i := 1; i < n; i++ {
		add(i, rng.IntN(i))
	}
	for k := 0; k < extra; k++ {
		add(rng.IntN(n), rng.IntN(n))
	}
	return e
}

// analyticSigma is the smallest σ of the analytic Gaussian mechanism
// (Balle & Wang 2018, Thm 8) for sensitivity d, by bisection.
func analyticSigma(d, eps, delta float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	ok := func(s float64) bool {
		return phi(d/(2*s)-eps*s/d)-math.Exp(eps)*phi(-d/(2*s)-eps*s/d) <= delta
	}
	lo, hi := 1e-6*d, d
	for !ok(hi) {
		hi *= 2
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// graphDelta2 is max over edges of ‖M(e_i − e_j)‖ from a spectral model.
func graphDelta2(md *Model) float64 {
	best := 0.0
	r := md.r
	md.graph.ForEachEdge(func(i, j int, _ float64) {
		t := 0.0
		for k := 0; k < r; k++ {
			d := md.s[k] * (md.v[i*r+k] - md.v[j*r+k])
			t += d * d
		}
		best = math.Max(best, math.Sqrt(t))
	})
	return best
}

func gauss(rng *rand.Rand, sigma float64, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = sigma * rng.NormFloat64()
	}
	return x
}

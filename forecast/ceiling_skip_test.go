package forecast

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// floorPoint is the oracle of routedFloor's point p: a plain
// breadth-first search from every community gives each node its distance
// d(s, o) to the others (up to maxFarHops), R_s = Σ_o e^{−ε·d(s,o)},
// π = 1/max(1, max R) and p_s = min(π, 1 − π·R_s).
func floorPoint(g *laplacian.Graph, part []int, eps float64) []float64 {
	n := g.N()
	rowPtr, col, _ := g.CSR()
	r := make([]float64, n)
	for _, m := range communityMembers(part) {
		dist := make([]int, n)
		for i := range dist {
			dist[i] = -1
		}
		var queue []int32
		for _, v := range m {
			dist[v] = 0
			queue = append(queue, v)
		}
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			if dist[u] == maxFarHops {
				continue
			}
			for _, v := range col[rowPtr[u]:rowPtr[u+1]] {
				if dist[v] < 0 {
					dist[v] = dist[u] + 1
					queue = append(queue, v)
				}
			}
		}
		for s, d := range dist {
			if d > 0 {
				r[s] += math.Exp(-eps * float64(d))
			}
		}
	}
	maxR := 1.0
	for _, x := range r {
		maxR = math.Max(maxR, x)
	}
	p := make([]float64, n)
	for s, x := range r {
		p[s] = math.Min(1/maxR, 1-x/maxR)
	}
	return p
}

// TestRoutedFloorIsFeasible: routedFloor's point meets every row of
// routings with random potentials and of their mean (the explicit
// matrices), so its mean is below every routed bound; routedFloor is
// that mean, and the routed bound is never below it.
func TestRoutedFloorIsFeasible(t *testing.T) {
	for _, spec := range []string{"pa:n=400,m=2,seed=1", "pa:n=300,m=3,seed=2"} {
		g, part, _ := leidenCase(t, spec)
		members := communityMembers(part)
		rng := rand.New(rand.NewPCG(3, 4))
		for _, eps := range []float64{0.5, 2, 4, 8} {
			p := floorPoint(g, part, eps)
			mean := 0.0
			for _, x := range p {
				mean += x
			}
			mean /= float64(len(p))
			if got := routedFloor(g, part, eps); math.Abs(got-mean) > 1e-12 {
				t.Errorf("%s ε = %g: routedFloor %.15g, the oracle's mean %.15g", spec, eps, got, mean)
			}
			var rs []*routes
			for range 3 {
				phi := make([]float64, g.N())
				for v := range phi {
					phi[v] = rng.Float64() * 3 * eps
				}
				rs = append(rs, newRoutes(context.Background(), nil, g, part, members, phi, eps))
				checkFeasible(t, explicitRoutedLP(rs[len(rs)-1:], eps, 1e-6).(*starMatrix), p)
			}
			checkFeasible(t, explicitRoutedLP(rs, eps, 1e-6).(*starMatrix), p)
			if r := routedCeiling(context.Background(), g, part, eps, 1e-6); r < mean {
				t.Errorf("%s ε = %g: routed bound %.15g below the feasible mean %.15g", spec, eps, r, mean)
			}
		}
	}
}

// checkFeasible fails unless p_s + Σ_u a_su·p_u ≤ b_s on every row of m.
func checkFeasible(t *testing.T, m *starMatrix, p []float64) {
	t.Helper()
	for s := range p {
		lhs := p[s]
		for e := m.rowPtr[s]; e < m.rowPtr[s+1]; e++ {
			lhs += float64(m.a[e]) * p[m.u[e]]
		}
		if lhs > m.b[s]+1e-12 {
			t.Fatalf("row %d: %.15g > b = %.15g", s, lhs, m.b[s])
		}
	}
}

// TestRoutedCeilingSkip: where Ceiling is within routedSkipGap of the
// floor, RoutedCeiling returns Ceiling without routing, and the routed
// bound it skipped (run anyway) is at most routedSkipGap below; where
// it is not, RoutedCeiling is the unskipped min(Ceiling, routed).
func TestRoutedCeilingSkip(t *testing.T) {
	g, part, _ := leidenCase(t, "pa:n=400,m=2,seed=1")
	ctx := context.Background()
	skipped := 0
	for _, eps := range []float64{1, 4, 8, 12} {
		c := Ceiling(g, part, eps, 1e-6)
		full := math.Min(c, routedCeiling(ctx, g, part, eps, 1e-6))
		got, err := RoutedCeiling(ctx, g, part, eps, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		skip := c-routedFloor(g, part, eps) <= routedSkipGap
		t.Logf("ε = %g: Ceiling %.17g, unskipped %.17g, RoutedCeiling %.17g, skip %v", eps, c, full, got, skip)
		switch {
		case skip && (got != c || c-full > routedSkipGap):
			t.Errorf("ε = %g: skipped to %.17g, want Ceiling %.17g within %g of the unskipped %.17g", eps, got, c, routedSkipGap, full)
		case !skip && got != full:
			t.Errorf("ε = %g: %.17g, want the unskipped %.17g", eps, got, full)
		}
		if skip {
			skipped++
		}
	}
	if skipped == 0 || skipped == 4 {
		t.Errorf("the skip fired at %d of 4 ε: the test checks neither side", skipped)
	}
}

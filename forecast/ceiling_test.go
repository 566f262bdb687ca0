package forecast

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// optimalAccuracy is the oracle: the largest mean accuracy of any
// mechanism M(s)[o] that is (ε, δ)-DP for moving the source one hop,
// solved as a linear program over all n·k probabilities (tiny graphs only):
// M(s)[o] ≤ e^ε·M(t)[o] + δ for every edge (both ways) and output,
// Σ_o M(s)[o] = 1, M ≥ 0.
func optimalAccuracy(t *testing.T, g *laplacian.Graph, part []int, k int, eps, delta float64) float64 {
	t.Helper()
	n := g.N()
	nv := n * k
	idx := func(s, o int) int { return s*k + o }
	c := make([]float64, nv)
	for s := range n {
		c[idx(s, part[s])] = -1 / float64(n)
	}
	var rows [][]float64
	var h []float64
	g.ForEachEdge(func(s, u int, _ float64) {
		for _, d := range [][2]int{{s, u}, {u, s}} {
			for o := range k {
				r := make([]float64, nv)
				r[idx(d[0], o)], r[idx(d[1], o)] = 1, -math.Exp(eps)
				rows, h = append(rows, r), append(h, delta)
			}
		}
	})
	// Σ_o M(s)[o] ≤ 1 relaxes the equality (the ceiling's argument only
	// uses that the answers are disjoint), so the oracle is at least the
	// optimum, and every row has a slack: standard form
	// [G I]·(x, slack) = h with the slacks as the first basis.
	for s := range n {
		r := make([]float64, nv)
		for o := range k {
			r[idx(s, o)] = 1
		}
		rows, h = append(rows, r), append(h, 1)
	}
	m := len(rows)
	std := mat.NewDense(m, nv+m, nil)
	for i, r := range rows {
		for j, v := range r {
			std.Set(i, j, v)
		}
		std.Set(i, nv+i, 1)
	}
	rhs := h
	basis := make([]int, m)
	for i := range basis {
		basis[i] = nv + i
	}
	cost := append(c, make([]float64, m)...)
	opt, _, err := lp.Simplex(cost, std, rhs, 1e-10, basis)
	if err != nil {
		t.Fatal(err)
	}
	return -opt
}

// TestCeilingAboveOptimum: the ceiling bounds the best mechanism there is
// (the LP optimum), and every answer mechanism graphcloak calibrates is
// such a mechanism, so its exact accuracy lies below the optimum.
func TestCeilingAboveOptimum(t *testing.T) {
	path := func(n int) *laplacian.Graph {
		var e []laplacian.Edge
		for i := 0; i+1 < n; i++ {
			e = append(e, laplacian.Edge{U: int32(i), V: int32(i + 1), Weight: 1})
		}
		g, _ := laplacian.FromEdges(n, nil, e, laplacian.Options{})
		return g
	}
	star, _ := laplacian.FromEdges(7, nil, []laplacian.Edge{{U: 0, V: 1, Weight: 1}, {U: 0, V: 2, Weight: 1},
		{U: 0, V: 3, Weight: 1}, {U: 0, V: 4, Weight: 1}, {U: 4, V: 5, Weight: 1}, {U: 5, V: 6, Weight: 1}}, laplacian.Options{})
	pa, paPart, paK := leidenCase(t, "pa:n=12,m=2,seed=1")
	cases := []struct {
		name string
		g    *laplacian.Graph
		part []int
		k    int
	}{
		{"path of 8, 4 communities", path(8), []int{0, 0, 1, 1, 2, 2, 3, 3}, 4},
		{"path of 7, 7 communities", path(7), []int{0, 1, 2, 3, 4, 5, 6}, 7},
		{"star with a tail", star, []int{0, 1, 2, 3, 4, 4, 5}, 6},
		{"preferential attachment, 12 nodes", pa, paPart, paK},
	}
	for _, tc := range cases {
		cg, err := privacy.NewCommunityGeometry(context.Background(), tc.g, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0.5, 1, 2, 4} {
			for _, delta := range []float64{1e-4, 1e-2} {
				opt := optimalAccuracy(t, tc.g, tc.part, tc.k, eps, delta)
				c := Ceiling(tc.g, tc.part, eps, delta)
				r := routedCeiling(context.Background(), tc.g, tc.part, eps, delta)
				t.Logf("%s ε=%g δ=%g: optimum %.4f ceiling %.4f routed %.4f", tc.name, eps, delta, opt, c, r)
				if c < opt-1e-9 {
					t.Errorf("%s ε=%g δ=%g: ceiling %.6f below the optimum %.6f", tc.name, eps, delta, c, opt)
				}
				if r < opt-1e-9 {
					t.Errorf("%s ε=%g δ=%g: routed ceiling %.6f below the optimum %.6f", tc.name, eps, delta, r, opt)
				}
				cal, err := privacy.CalibrateAnswer(context.Background(), cg, eps, 1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if cal.Accuracy > opt+1e-9 {
					t.Errorf("%s ε=%g: %s accuracy %.6f above the optimum %.6f", tc.name, eps, cal.Mechanism, cal.Accuracy, opt)
				}
			}
		}
	}
}

// leidenCase generates a graph and its Leiden partition (canonical ids
// 0..k−1).
func leidenCase(t *testing.T, spec string) (*laplacian.Graph, []int, int) {
	t.Helper()
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g, part, slices.Max(part) + 1
}

// TestRoutedCeilingTighter: on a preferential-attachment graph with a
// dozen communities, routing every source to a balanced member bounds the
// mean more tightly than the star bound at small ε, and never below what
// the envelope mechanism graphcloak calibrates actually reaches.
func TestRoutedCeilingTighter(t *testing.T) {
	g, part, k := leidenCase(t, "pa:n=400,m=2,seed=1")
	cg, err := privacy.NewCommunityGeometry(context.Background(), g, part)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.5, 1} {
		c := Ceiling(g, part, eps, 1e-6)
		r := routedCeiling(context.Background(), g, part, eps, 1e-6)
		cal, err := privacy.CalibrateAnswer(context.Background(), cg, eps, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("k = %d, ε = %g: star ceiling %.4f, routed %.4f, calibrated %s %.4f", k, eps, c, r, cal.Mechanism, cal.Accuracy)
		if r > 0.95*c {
			t.Errorf("ε = %g: routed ceiling %.4f not below 0.95 × the star ceiling %.4f", eps, r, c)
		}
		if r < cal.Accuracy {
			t.Errorf("ε = %g: routed ceiling %.4f below the calibrated mechanism's accuracy %.4f", eps, r, cal.Accuracy)
		}
	}
}

// explicitRoutedLP is the oracle of routedLP: the routing's rows written
// out as an explicit matrix (row s credits, for every other community,
// its routed member with e^{−ε·d} rounded down to float32), or the mean
// of several such matrices, entry by entry.
func explicitRoutedLP(rs []*routes, epsilon, delta float64) dualLP {
	ms := make([]*starMatrix, len(rs))
	for i, r := range rs {
		m := &starMatrix{b: make([]float64, r.n), rowPtr: make([]int, r.n+1)}
		for s := range r.n {
			b := 1.0
			for o := range r.k {
				i := s*r.k + o
				if r.origin[i] < 0 {
					continue
				}
				d := int(r.hops[i])
				m.u = append(m.u, r.origin[i])
				m.a = append(m.a, math.Nextafter32(float32(math.Exp(-epsilon*float64(d))), 0))
				b += delta * groupSum(d, epsilon)
			}
			m.b[s] = b
			m.rowPtr[s+1] = len(m.u)
		}
		ms[i] = m
	}
	if len(ms) == 1 {
		return ms[0]
	}
	n := len(ms[0].b)
	w := 1 / float32(len(ms))
	out := &starMatrix{b: make([]float64, n), rowPtr: make([]int, n+1)}
	for s := range n {
		for _, m := range ms {
			out.b[s] += m.b[s] / float64(len(ms))
			for e := m.rowPtr[s]; e < m.rowPtr[s+1]; e++ {
				out.u = append(out.u, m.u[e])
				out.a = append(out.a, math.Nextafter32(m.a[e]*w, 0))
			}
		}
		out.b[s] = math.Nextafter(out.b[s], math.Inf(1))
		out.rowPtr[s+1] = len(out.u)
	}
	return out
}

// TestRoutedLPMatchesMatrix: the LP read from the routes is the explicit
// matrix's. In one chunk its value, gradient and the whole routed bound
// are the matrix's to the bit; in several chunks (added in another order)
// value and gradient agree to rounding, for one routing and for the mean
// of three, and so do those of the mean with its entries merged.
func TestRoutedLPMatchesMatrix(t *testing.T) {
	g, part, _ := leidenCase(t, "pa:n=400,m=2,seed=1")
	members := communityMembers(part)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, eps := range []float64{0.5, 2} {
		var rs []*routes
		for range 3 {
			phi := make([]float64, g.N())
			for v := range phi {
				phi[v] = rng.Float64() * eps
			}
			rs = append(rs, newRoutes(context.Background(), nil, g, part, members, phi, eps))
		}
		for _, set := range [][]*routes{rs[:1], rs} {
			want := explicitRoutedLP(set, eps, 1e-3)
			y := make([]float64, g.N())
			for s := range y {
				y[s] = rng.Float64()
			}
			for _, chunks := range []int{1, 8} {
				got := newRoutedLP(set, eps, 1e-3, chunks)
				tol := 1e-12
				if chunks == 1 {
					tol = 0
				}
				compareDualLP(t, got, want, y, tol)
				if len(set) == 1 {
					// Packed, the routing's LP is read from the routes to the
					// bit, with either member type.
					compareDualLP(t, packRoutes[uint16](set[0], eps, 1e-3, chunks), got, y, 0)
					compareDualLP(t, packRoutes[int32](set[0], eps, 1e-3, chunks), got, y, 0)
				}
			}
			if len(set) > 1 {
				// Merged coefficients are sums rounded down to float32:
				// coverage no larger than the matrix's, and within 10⁻⁶.
				merged := mergedMean(set, eps, 1e-3)
				compareDualLP(t, merged, want, y, 1e-6)
				covM, covW := make([]float64, g.N()), make([]float64, g.N())
				merged.value(y, covM)
				want.value(y, covW)
				for u := range covM {
					if covM[u] > covW[u]*(1+1e-15) {
						t.Fatalf("merged coverage %v of node %d above the matrix's %v", covM[u], u, covW[u])
					}
				}
			}
		}
		want := routedBound(context.Background(), g, part, eps, 1e-6, func(rs []*routes, d float64) dualLP { return explicitRoutedLP(rs, eps, d) })
		got := routedBound(context.Background(), g, part, eps, 1e-6, func(rs []*routes, d float64) dualLP { return newRoutedLP(rs, eps, d, 1) })
		chunked := routedCeiling(context.Background(), g, part, eps, 1e-6)
		t.Logf("ε = %g: routed bound %.6f from the matrix, %.6f from the routes, %.6f in chunks with the merged mean", eps, want, got, chunked)
		if got != want {
			t.Errorf("ε = %g: routed bound %v from the routes, %v from the matrix", eps, got, want)
		}
		if math.Abs(chunked-want) > 1e-6 {
			t.Errorf("ε = %g: routed bound %v in chunks, %v from the matrix", eps, chunked, want)
		}
	}
}

// compareDualLP checks value and gradient of got against want at y, to a
// relative tol (0: to the bit).
func compareDualLP(t *testing.T, got, want dualLP, y []float64, tol float64) {
	t.Helper()
	n := len(y)
	covG, covW := make([]float64, n), make([]float64, n)
	gradG, gradW := make([]float64, n), make([]float64, n)
	fG, fW := got.value(y, covG), want.value(y, covW)
	nG, nW := got.gradient(covW, gradG), want.gradient(covW, gradW)
	near := func(a, b float64) bool { return a == b || math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }
	if !near(fG, fW) || !near(nG, nW) {
		t.Errorf("tol %g: value %v / gradient norm² %v, matrix %v / %v", tol, fG, nG, fW, nW)
	}
	for s := range y {
		if !near(covG[s], covW[s]) || !near(gradG[s], gradW[s]) {
			t.Fatalf("tol %g row %d: coverage %v gradient %v, matrix %v / %v", tol, s, covG[s], gradG[s], covW[s], gradW[s])
		}
	}
}

// BenchmarkNewRoutes times one routing (a search per community) on a
// preferential-attachment graph of 4 000 nodes.
func BenchmarkNewRoutes(b *testing.B) {
	g, part := paLeiden(b)
	members := communityMembers(part)
	phi := make([]float64, g.N())
	for b.Loop() {
		newRoutes(context.Background(), nil, g, part, members, phi, 0.5)
	}
}

// TestRoutedCeilingUpTo: below n·k the limit leaves the star-and-pair
// ceiling, above it the routed one.
func TestRoutedCeilingUpTo(t *testing.T) {
	g, part, k := leidenCase(t, "pa:n=400,m=2,seed=1")
	ctx := context.Background()
	c := Ceiling(g, part, 0.5, 1e-6)
	below, err := RoutedCeilingUpTo(ctx, g, part, 0.5, 1e-6, g.N()*k-1)
	if err != nil || below != c {
		t.Errorf("limit below n·k: %v (%v), want Ceiling %v", below, err, c)
	}
	at, err := RoutedCeilingUpTo(ctx, g, part, 0.5, 1e-6, g.N()*k)
	if want := math.Min(c, routedCeiling(ctx, g, part, 0.5, 1e-6)); err != nil || at != want {
		t.Errorf("limit n·k: %v (%v), want %v", at, err, want)
	}
}

// TestRoutedCeilingMonotoneInDelta: a larger δ allows more, so the
// ceiling at a larger δ is never lower (plan's fell, 0.712 → 0.707, as δ
// grew: each δ steered its own dual descent). Checked on a δ grid at
// several ε, for the routed bound alone and for RoutedCeiling.
func TestRoutedCeilingMonotoneInDelta(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{"pa:n=400,m=2,seed=1", "pa:n=300,m=3,seed=2"} {
		g, part, _ := leidenCase(t, spec)
		for _, eps := range []float64{0.5, 1, 4} {
			prev, prevR := 0.0, 0.0
			for _, delta := range []float64{0, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2} {
				r := routedCeiling(ctx, g, part, eps, delta)
				c, err := RoutedCeiling(ctx, g, part, eps, delta)
				if err != nil {
					t.Fatal(err)
				}
				if r < prevR || c < prev {
					t.Errorf("%s, ε = %g: at δ = %g the ceiling is %.6f (routed %.6f), below the smaller δ's %.6f (routed %.6f)", spec, eps, delta, c, r, prev, prevR)
				}
				prev, prevR = c, r
			}
		}
	}
}

// paLeiden is the benchmarks' preferential-attachment graph of 4 000
// nodes and its Leiden communities.
func paLeiden(b *testing.B) (*laplacian.Graph, []int) {
	g, _, err := laplacian.Generate("pa:n=4000,m=4,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return g, part
}

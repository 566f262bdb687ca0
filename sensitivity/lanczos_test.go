package sensitivity

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// hubGraph is a hard case for every bound: comps components, each with a
// few hubs joined to many leaves and to each other, a path hanging off by a
// bridge, and (when weighted) weights spread log-uniformly over
// [1e-3, 1e3].
func hubGraph(t testing.TB, rng *rand.Rand, comps, size int, weighted bool) *laplacian.Graph {
	var e []laplacian.Edge
	wt := func() float64 {
		if !weighted {
			return 1
		}
		return math.Pow(10, -3+6*rng.Float64())
	}
	n := 0
	for c := 0; c < comps; c++ {
		base := n
		hubs := 3
		for h := 1; h < hubs; h++ {
			e = append(e, laplacian.Edge{U: int32(base), V: int32(base + h), Weight: wt()})
		}
		v := base + hubs
		for ; v < base+size-6; v++ {
			h := base + rng.IntN(hubs)
			e = append(e, laplacian.Edge{U: int32(h), V: int32(v), Weight: wt()})
			if rng.Float64() < 0.2 && v > base+hubs {
				e = append(e, laplacian.Edge{U: int32(v - 1), V: int32(v), Weight: wt()})
			}
		}
		// A path of 6 nodes on a bridge from the last leaf.
		for ; v < base+size; v++ {
			e = append(e, laplacian.Edge{U: int32(v - 1), V: int32(v), Weight: wt()})
		}
		n = base + size
	}
	return mustGraph(t, n, e)
}

// Every edge's Lanczos bracket contains the exact ‖exp(−τL)b_e‖ of the
// Padé oracle at every checkpoint (a bracket from few steps is loose,
// never wrong), and is narrower than 1e-8 of the largest one (what Δ2
// needs) once enough steps are taken.
func TestLanczosEdgeBracket(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		name  string
		g     *laplacian.Graph
		tau   float64
		twins bool    // the twin quotient is smaller than the graph
		tol   float64 // the oracle's relative accuracy (default 1e-12)
	}{
		{"hubs", hubGraph(t, rng, 1, 90, false), 0.5, true, 0},
		{"hubs-weighted", hubGraph(t, rng, 2, 60, true), 0.3, false, 0},
		{"hubs-large-tau", hubGraph(t, rng, 1, 120, false), 10, true, 0},
		{"random-weighted", randomGraph(t, rng, 70, 0.08, 3, true), 2, false, 0},
		{"star", mustGraph(t, 40, starEdges(40)), 1, true, 0},
		{"path", mustGraph(t, 30, pathEdges(30)), 5, false, 0},
		{"twins-weighted", twinGraph(t, rng), 0.1, true, 0},
		// The oracle is 1.1e-12 low on the component K_{1,3} (weights 0.5)
		// here: its closed form is ((4/3)e^{−12} + (2/3)e^{−3})^{1/2}.
		{"twins-weighted-large-tau", twinGraph(t, rng), 3, true, 3e-12},
	}
	for _, c := range cases {
		for _, quotient := range []bool{false, true} {
			A := expmOracle(c.g, c.tau)
			n := c.g.N()
			op := newGraphOp(c.g)
			if quotient {
				op = newTwinOp(c.g)
				if c.twins && op.g.N() == n {
					t.Fatalf("%s: no twin quotient", c.name)
				}
			}
			lw := newLanczosWork(op, c.tau, min(n+5, 120))
			tight, edges, checks := 0, 0, 0
			maxWant := 0.0
			widths := []float64{}
			c.g.ForEachEdge(func(i, j int, _ float64) {
				want := math.Sqrt(columnDiffSq(A, i, j))
				op.start(lw, i, j)
				var lo, up float64
				for k := 1; k <= lw.kmax; k++ {
					ok := lw.step(k - 1)
					if k%10 == 0 || !ok || k == lw.kmax {
						lo, up = lw.certify(k, 0)
						checks++
						// The oracle is accurate to ~1e-13 relative.
						tol := cmp.Or(c.tol, 1e-12)
						if lo > want*(1+tol)+1e-15 || up < want*(1-tol)-1e-15 {
							t.Fatalf("%s (quotient %v) edge (%d,%d) k=%d: bracket [%.17g, %.17g] misses oracle %.17g", c.name, quotient, i, j, k, lo, up, want)
						}
					}
					if !ok {
						break
					}
				}
				edges++
				maxWant = math.Max(maxWant, want)
				widths = append(widths, up-lo)
			})
			for _, wd := range widths {
				if wd <= 1e-8*maxWant {
					tight++
				}
			}
			if tight < edges {
				t.Errorf("%s (quotient %v): only %d of %d edges bracketed to 1e-8 after %d steps", c.name, quotient, tight, edges, lw.kmax)
			}
			t.Logf("%s (quotient %v, %d rows): %d edges, %d brackets checked, %d tight", c.name, quotient, op.g.N(), edges, checks, tight)
		}
	}
}

// Both of certify's brackets contain the Padé oracle's ‖exp(−τL)b_e‖ at
// every checkpoint, each on its own, even past n steps where the Krylov
// vectors have lost all orthogonality (the overlaps Vᵀv_{k+1} are O(1)).
// And the second order pays: its width is of the order of the square of
// the first's, so it reaches the relative width 10⁻⁶ in fewer steps.
func TestLanczosSecondOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		name string
		g    *laplacian.Graph
		tau  float64
		gain float64 // the share of the steps it must save (none at large τ)
	}{
		{"hubs", hubGraph(t, rng, 1, 50, false), 1, 0.15},
		{"hubs-weighted", hubGraph(t, rng, 2, 30, true), 0.5, 0.1},
		{"hubs-large-tau", hubGraph(t, rng, 1, 50, false), 10, 0},
		{"random-weighted", randomGraph(t, rng, 45, 0.1, 3, true), 2, 0.1},
	}
	for _, c := range cases {
		A := expmOracle(c.g, c.tau)
		n := c.g.N()
		op := newGraphOp(c.g)
		lw := newLanczosWork(op, c.tau, n+10)
		var steps [2]int // to the relative width 1e-6, summed over the edges
		c.g.ForEachEdge(func(i, j int, _ float64) {
			want := math.Sqrt(columnDiffSq(A, i, j))
			op.start(lw, i, j)
			reached := [2]int{lw.kmax, lw.kmax}
			for k := 1; k <= lw.kmax; k++ {
				ok := lw.step(k - 1)
				if k%4 == 0 || !ok || k == lw.kmax {
					first, second := lw.brackets(k, 0)
					for o, b := range [2][2]float64{first, second} {
						if b[0] > want*(1+1e-12)+1e-15 || b[1] < want*(1-1e-12)-1e-15 {
							t.Fatalf("%s edge (%d,%d) k=%d: first [%.17g, %.17g], second [%.17g, %.17g], oracle %.17g",
								c.name, i, j, k, first[0], first[1], second[0], second[1], want)
						}
						if b[1]-b[0] <= 1e-6*want {
							reached[o] = min(reached[o], k)
						}
					}
				}
				if !ok {
					break
				}
			}
			steps[0] += reached[0]
			steps[1] += min(reached[0], reached[1]) // certify intersects the two
		})
		if float64(steps[1]) > (1-c.gain)*float64(steps[0]) {
			t.Errorf("%s: %d steps to 1e-6 with the second order, %d without (want ≤ %g %%)", c.name, steps[1], steps[0], 100*(1-c.gain))
		}
		t.Logf("%s: %d steps to 1e-6 with the second order, %d without", c.name, steps[1], steps[0])
	}
}

// The integral bound of a cancelling exponential sum: e^{−s} − e^{−s(1+δ)}
// integrates to ≈ δ·(1 − 2e^{−1})·… ; here against the closed form
// ∫₀^τ (e^{−as} − e^{−bs}) ds = (1 − e^{−aτ})/a − (1 − e^{−bτ})/b (b > a:
// the integrand is ≥ 0).
func TestAbsExpSumIntegral(t *testing.T) {
	for _, c := range []struct{ a, b, tau float64 }{
		{1, 1 + 1e-6, 1}, {0.5, 2400, 1}, {1e-3, 3, 10}, {2, 2.5, 0.1},
	} {
		want := (1-math.Exp(-c.a*c.tau))/c.a - (1-math.Exp(-c.b*c.tau))/c.b
		got := absExpSumIntegral([]float64{1, -1}, []float64{c.a, c.b}, c.tau, 1e-3*want)
		if got < want*(1-1e-12) {
			t.Errorf("%+v: bound %g below the integral %g", c, got, want)
		}
		if got > want*1.1 {
			t.Errorf("%+v: bound %g more than 10%% above the integral %g", c, got, want)
		}
	}
}

// headIntegral bounds ∫₀^τ (Σ_m q_m² e^{−2sθ_m})^{1/2} ds from above and
// within 30 %: one term against the closed form (1 − e^{−τθ})/θ, several
// (one θ negative: a growing term) against Simpson's rule on 2·10⁵ steps.
func TestHeadIntegral(t *testing.T) {
	simpson := func(f func(float64) float64, tau float64) float64 {
		const N = 200000
		h := tau / N
		sum := f(0) + f(tau)
		for i := 1; i < N; i++ {
			sum += float64(2+2*(i%2)) * f(float64(i)*h)
		}
		return sum * h / 3
	}
	for _, c := range []struct {
		q, theta []float64
		tau      float64
	}{
		{[]float64{1}, []float64{3}, 10},
		{[]float64{1}, []float64{1e-4}, 2},
		{[]float64{0.6, 0.8}, []float64{2400, 0.05}, 10},
		{[]float64{0.3, 0.5, math.Sqrt(1 - 0.34)}, []float64{-1e-3, 1, 50}, 5},
		{[]float64{0.1, 0.99, 0.1}, []float64{0.2, 7, 700}, 0.1},
	} {
		Q := mat.NewDense(1, len(c.q), c.q)
		phi := func(s float64) float64 {
			sum := 0.0
			for m, th := range c.theta {
				sum += c.q[m] * c.q[m] * math.Exp(-2*s*th)
			}
			return math.Sqrt(sum)
		}
		want := simpson(phi, c.tau)
		if len(c.q) == 1 {
			want = (1 - math.Exp(-c.tau*c.theta[0])) / c.theta[0]
		}
		got := headIntegral(Q, c.theta, c.tau)
		if got < want*(1-1e-9) || got > 1.3*want {
			t.Errorf("θ = %v, τ = %g: bound %g, integral %g", c.theta, c.tau, got, want)
		}
	}
}

// The Lanczos scheme brackets the Padé oracle's Δ2 and agrees with the
// column scheme, on graphs with hubs, leaves, bridges, weights over six
// decades and several components.
func TestLanczosSchemeAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 8; trial++ {
		var g *laplacian.Graph
		if trial%2 == 0 {
			g = hubGraph(t, rng, 1+trial%3, 40+rng.IntN(40), trial%4 == 0)
		} else {
			g = randomGraph(t, rng, 40+rng.IntN(40), 0.1, 1+trial%3, true)
		}
		tau := []float64{0.1, 0.7, 3, 10}[trial%4]
		alpha := 0.5 + rng.Float64()
		A := expmOracle(g, tau)
		want := alpha * oracleDelta(g, A)
		lz, err := Graph(g, tau, alpha, Options{Method: expm.Sparse, Scheme: SchemeLanczos})
		if err != nil {
			t.Fatal(err)
		}
		cols, err := Graph(g, tau, alpha, Options{Method: expm.Sparse, Scheme: SchemeColumns})
		if err != nil {
			t.Fatal(err)
		}
		checkBracket(t, "lanczos", lz, want, 1e-12)
		checkBracket(t, "columns", cols, want, 1e-12)
		checkArgmax(t, "lanczos", g, A, lz)
		checkArgmax(t, "columns", g, A, cols)
		// Far below 1e-5 the rounding floor of the bracket (≈ k²u‖b_e‖)
		// exceeds ExactRelativeSlack; it is then reported as a bound.
		if lz.Method != "lanczos-edges" || (!lz.Exact && want > 1e-5) || !lz.Certified {
			t.Errorf("trial %d: method %s exact %v certified %v Δ2 %g slack %g want %g", trial, lz.Method, lz.Exact, lz.Certified, lz.Delta2, lz.Slack, want)
		}
		if lz.Delta2 < cols.Delta2-cols.Slack || cols.Delta2 < lz.Delta2-lz.Slack {
			t.Errorf("trial %d: lanczos [%g, %g] and columns [%g, %g] disagree", trial, lz.Delta2-lz.Slack, lz.Delta2, cols.Delta2-cols.Slack, cols.Delta2)
		}
	}
}

// With the memory cap set so that the first pass stops every recurrence at
// 12 steps, the second pass over the classes it cut short (four
// recurrences per block, 51 steps each) still brings Δ2 to the exact
// tolerance, bracketing the oracle.
func TestLanczosSchemeDeepPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g := hubGraph(t, rng, 1, 90, false)
	tau := 2.0
	defer func(m int) { lanczosMemory = m }(lanczosMemory)
	lanczosMemory = 13 * 8 * g.N() * runtime.GOMAXPROCS(0) * columnBlock
	if k := lanczosMaxSteps(g, runtime.GOMAXPROCS(0)*columnBlock); k != 12 {
		t.Fatalf("first pass: %d steps, want 12", k)
	}
	base := Result{Certified: true, Alpha: 1, Edge: [2]int{-1, -1}, Nodes: g.N(), Edges: g.NumEdges()}
	want := oracleDelta(g, expmOracle(g, tau))
	var anytime []float64
	s := honestExact(lanczosGraphSensitivity(g, tau, 1, Options{Status: func(st Interim) { anytime = append(anytime, st.Delta2) }}, base))
	checkBracket(t, "deep pass", s, want, 1e-12)
	for _, d := range anytime { // every anytime value is a proven bound too
		if d < want*(1-1e-12) {
			t.Errorf("anytime bound %g below Δ2 %g", d, want)
		}
	}
	if !s.Exact {
		t.Errorf("not exact after the second pass: Δ2 = %g, relative slack %g", s.Delta2, s.RelativeSlack)
	}
}

// A budget that ends at once still returns a proven upper bound (the
// per-edge bounds), not called exact.
func TestLanczosSchemeTimeBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := hubGraph(t, rng, 2, 80, true)
	tau := 0.8
	want := oracleDelta(g, expmOracle(g, tau))
	s, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeLanczos, TimeBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Delta2 < want || !s.Certified || s.Exact {
		t.Errorf("budgeted: Δ2 %g (exact %v) vs oracle %g", s.Delta2, s.Exact, want)
	}
}

// Edge classes: every edge is in exactly one, and the oracle's q_e is the
// same on every edge of a class (swapping false twins is an automorphism).
func TestEdgeClassesShareQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g := hubGraph(t, rng, 1, 70, false)
	tau := 1.3
	A := expmOracle(g, tau)
	tw := falseTwins(g)
	cl := edgeClasses(g, tau, cutoff{})
	total, multi := 0, 0
	rep := map[[2]int]float64{}
	for _, c := range cl {
		total += c.size
		if c.size > 1 {
			multi++
		}
		a, b := tw.rep[c.i], tw.rep[c.j]
		qe := columnDiffSq(A, c.i, c.j)
		rep[[2]int{min(a, b), max(a, b)}] = qe
		// The class's proven bounds hold: Jensen below, the cheap bound above.
		if c.lo > qe*(1+1e-12) || c.u < qe*(1-1e-12) {
			t.Errorf("class (%d,%d): lower %g, q_e %g, upper %g", c.i, c.j, c.lo, qe, c.u)
		}
	}
	if total != g.NumEdges() || multi == 0 {
		t.Fatalf("classes cover %d of %d edges, %d with more than one edge", total, g.NumEdges(), multi)
	}
	g.ForEachEdge(func(i, j int, _ float64) {
		a, b := tw.rep[i], tw.rep[j]
		if q, want := columnDiffSq(A, i, j), rep[[2]int{min(a, b), max(a, b)}]; math.Abs(q-want) > 1e-13 {
			t.Errorf("edge (%d,%d): q %g, its class %g", i, j, q, want)
		}
	})
}

// bridgeSides against brute force: remove each edge and count what is cut
// off.
func TestBridgeSides(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 6; trial++ {
		var g *laplacian.Graph
		if trial%2 == 0 {
			g = hubGraph(t, rng, 1+trial%3, 30+rng.IntN(20), false)
		} else {
			g = randomGraph(t, rng, 40, 0.04, 1+trial%2, false)
		}
		got := bridgeSides(g)
		var edges []laplacian.Edge
		g.ForEachEdge(func(i, j int, w float64) { edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w}) })
		_, comp := g.Components()
		bridges := 0
		for k, e := range edges {
			rest := append(append([]laplacian.Edge(nil), edges[:k]...), edges[k+1:]...)
			h := mustGraph(t, g.N(), rest)
			_, hc := h.Components()
			a, b := 0, 0
			for v := range hc {
				if hc[v] == hc[e.U] {
					a++
				}
				if hc[v] == hc[e.V] {
					b++
				}
			}
			key := [2]int{min(int(e.U), int(e.V)), max(int(e.U), int(e.V))}
			s, ok := got[key]
			if hc[e.U] == hc[e.V] {
				if ok {
					t.Errorf("edge %v on a cycle reported as a bridge", key)
				}
				continue
			}
			bridges++
			size := 0
			for v := range comp {
				if comp[v] == comp[e.U] {
					size++
				}
			}
			if !ok || s.small != min(a, b) || s.large != max(a, b) || a+b != size {
				t.Errorf("bridge %v: got %v (%v), want %d and %d", key, s, ok, min(a, b), max(a, b))
			}
		}
		if bridges != len(got) || bridges == 0 {
			t.Errorf("trial %d: %d bridges by brute force, %d reported", trial, bridges, len(got))
		}
	}
}

// A block runs, per slot, the recurrence of lanczosWork.step: on a
// weighted graph with hubs, slots loaded with different edges at different
// times (one idle, one reloaded mid-way) agree with single recurrences of
// the same edges in α, β and every Krylov vector up to summation order —
// also with its rows split into parts that step at once (spreadRows; here
// three uneven parts, as the graph is too small for the kernel's split),
// over the first six steps: the parts sum in another order, and on this
// graph a recurrence multiplies a rounding difference by about ten a step
// (1e-16 at the first step, 2e-7 at the ninth).
func TestLanczosBlockMatchesSingle(t *testing.T) {
	for _, parts := range [][]int{nil, {0, 7, 23, 80}} {
		testLanczosBlockMatchesSingle(t, parts)
	}
}

func testLanczosBlockMatchesSingle(t *testing.T, parts []int) {
	rng := rand.New(rand.NewPCG(31, 32))
	g := hubGraph(t, rng, 2, 40, true)
	op := newGraphOp(g)
	const steps, tau = 12, 0.7
	var edges [][2]int
	g.ForEachEdge(func(i, j int, w float64) { edges = append(edges, [2]int{i, j}) })
	lb := newLanczosBlock(op, tau, steps+8)
	if parts != nil {
		if g.N() != parts[len(parts)-1] {
			t.Fatalf("the parts end at %d, the graph has %d nodes", parts[len(parts)-1], g.N())
		}
		lb.parts, lb.rowParts = parts, []int{0, 40, 61, 80}
		lb.sums = make([][4][columnBlock]float64, len(parts)-1)
	}
	type run struct {
		slot, edge, from int // loaded before block step from
	}
	runs := []run{{0, 0, 0}, {3, 5, 0}, {15, 9, 2}, {7, 1, 0}, {7, 14, 5}}
	check := func(r run, upto int) {
		if parts != nil {
			upto = min(upto, 6)
		}
		single := newLanczosWork(op, tau, steps+8)
		single.start(edges[r.edge][0], edges[r.edge][1])
		lw := lb.slot[r.slot]
		for k := 0; k < upto; k++ {
			single.step(k)
			if d := math.Abs(single.alpha[k] - lw.alpha[k]); d > 1e-12*math.Abs(single.alpha[k])+1e-14 {
				t.Errorf("parts %v slot %d edge %d step %d: α %.17g (single) vs %.17g (block)", parts, r.slot, r.edge, k, single.alpha[k], lw.alpha[k])
			}
			if d := math.Abs(single.beta[k] - lw.beta[k]); d > 1e-12*single.beta[k]+1e-14 {
				t.Errorf("slot %d edge %d step %d: β %.17g vs %.17g", r.slot, r.edge, k, single.beta[k], lw.beta[k])
			}
			sv, bv := single.vec(k+1), lw.vec(k+1)
			for x := range sv {
				if math.Abs(sv[x]-bv[x]) > 1e-9 {
					t.Fatalf("slot %d edge %d step %d: v[%d] %g vs %g", r.slot, r.edge, k, x, sv[x], bv[x])
				}
			}
		}
	}
	for s := range lb.slot {
		lb.idle(s)
	}
	for k := 0; k < steps; k++ {
		for _, r := range runs {
			if r.from == k {
				if r.slot == 7 && k > 0 {
					check(runs[3], k) // the first run of slot 7, before it is replaced
				}
				lb.load(r.slot, r.edge, edges[r.edge][0], edges[r.edge][1])
			}
		}
		lb.step()
	}
	for _, r := range runs {
		if r.slot == 7 && r.from == 0 {
			continue
		}
		check(r, steps-r.from)
	}
}

// tridiagEigEnds against gonum's EigenSym on random tridiagonal matrices
// (including tiny couplings, repeated diagonals and the sizes 1 and 2):
// the same eigenvalues, and per eigenvalue the same squared first
// component and product of first and last components (signs of
// eigenvectors are arbitrary).
func TestTridiagEigEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 40 {
		k := 1 + trial*3%60
		d, e := make([]float64, k), make([]float64, k)
		T := mat.NewSymDense(k, nil)
		for i := range k {
			d[i] = math.Pow(10, 3*rng.Float64())
			if trial%5 == 0 {
				d[i] = 2 // repeated
			}
			T.SetSym(i, i, d[i])
			if i+1 < k {
				e[i] = rng.NormFloat64() * math.Pow(10, -6*rng.Float64()*float64(trial%2))
				T.SetSym(i, i+1, e[i])
			}
		}
		first, last := make([]float64, k), make([]float64, k)
		first[0], last[k-1] = 1, 1
		if !tridiagEigEnds(d, e, first, last) {
			t.Fatalf("trial %d: no convergence", trial)
		}
		var es mat.EigenSym
		if !es.Factorize(T, true) {
			t.Fatal("EigenSym failed")
		}
		want := es.Values(nil)
		var Q mat.Dense
		es.VectorsTo(&Q)
		idx := make([]int, k)
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return d[idx[a]] < d[idx[b]] })
		scale := math.Abs(want[0]) + math.Abs(want[k-1])
		w1, wk := 0.0, 0.0
		for m, i := range idx {
			if math.Abs(d[i]-want[m]) > 1e-12*scale {
				t.Errorf("trial %d: eigenvalue %d: %.15g, want %.15g", trial, m, d[i], want[m])
			}
			w1 += first[i] * first[i]
			wk += last[i] * last[i]
			// Components are only defined per eigenspace: compare where
			// the eigenvalue is simple.
			simple := (m == 0 || want[m]-want[m-1] > 1e-6*scale) && (m == k-1 || want[m+1]-want[m] > 1e-6*scale)
			if !simple {
				continue
			}
			if got, ref := first[i]*first[i], Q.At(0, m)*Q.At(0, m); math.Abs(got-ref) > 1e-9 {
				t.Errorf("trial %d: eigenvalue %d: first² %g, want %g", trial, m, got, ref)
			}
			if got, ref := first[i]*last[i], Q.At(0, m)*Q.At(k-1, m); math.Abs(got-ref) > 1e-9 {
				t.Errorf("trial %d: eigenvalue %d: first·last %g, want %g", trial, m, got, ref)
			}
		}
		// The rows stay unit vectors (the rotations are orthogonal).
		if math.Abs(w1-1) > 1e-12 || math.Abs(wk-1) > 1e-12 {
			t.Errorf("trial %d: row norms² %g and %g", trial, w1, wk)
		}
	}
}

// A block's minSteps run whatever the deadline says (the dry run's pilot,
// whose guess must not depend on the host's load): with a deadline already
// past, the brackets are those of a run without one; with minSteps 0 the
// same deadline cuts every recurrence after its first step, to wider
// brackets.
func TestLanczosBlockMinSteps(t *testing.T) {
	op, edges := hubEdges(t, 41, 120, 24)
	run := func(minSteps int, deadline time.Time) [][2]float64 {
		lb := newLanczosBlock(op, 2, 200)
		lb.minSteps = minSteps
		out := make([][2]float64, len(edges))
		lb.refine(8, lb.inOrder(edges), func() float64 { return 0 }, func(c int, lo, up float64, deep bool) { out[c] = [2]float64{lo, up} }, cutoff{at: deadline})
		return out
	}
	free := run(0, time.Time{})
	past := time.Now().Add(-time.Second)
	held := run(1<<30, past)
	cut := run(0, past)
	wider := 0
	for c := range edges {
		if held[c] != free[c] {
			t.Errorf("edge %d: bracket %v with minSteps and a past deadline, %v without a deadline", c, held[c], free[c])
		}
		if cut[c][1]-cut[c][0] > free[c][1]-free[c][0] {
			wider++
		}
		if !(free[c][1]-free[c][0] <= 1e-4*free[c][1]) {
			t.Errorf("edge %d: bracket %v still wide without a deadline", c, free[c])
		}
	}
	if wider < len(edges)/2 {
		t.Errorf("a past deadline without minSteps widened only %d of %d brackets", wider, len(edges))
	}
}

// The dry run counts recurrence steps (sampleSteps, pilotSteps) from the
// block's step counter: a class loaded at block step s0 and done at s1 ran
// s1 − s0 steps, whatever the other slots do. Checked against each class
// run alone, and the busy-slot total against the per-class sum.
func TestLanczosBlockStepCounts(t *testing.T) {
	op, edges := hubEdges(t, 43, 100, 20)
	run := func(list []int, slots int) (map[int]int, int) {
		lb := newLanczosBlock(op, 1.5, 120)
		sub := make([][2]int, len(list))
		for k, c := range list {
			sub[k] = edges[c]
		}
		steps := map[int]int{}
		lb.refine(slots, lb.inOrder(sub), func() float64 { return 0.05 }, func(k int, _, _ float64, _ bool) { steps[list[k]] = lb.stepsOf(k) }, cutoff{})
		return steps, lb.slotSteps
	}
	all := make([]int, len(edges))
	for c := range all {
		all[c] = c
	}
	together, total := run(all, 6)
	sum := 0
	for c := range edges {
		alone, _ := run([]int{c}, 1)
		if together[c] != alone[c] || alone[c] < 1 {
			t.Errorf("edge %d: %d steps beside other slots, %d alone", c, together[c], alone[c])
		}
		sum += together[c]
	}
	if sum != total {
		t.Errorf("busy-slot steps %d, per-class sum %d", total, sum)
	}
}

// hubEdges is the Lanczos operator of a weighted one-component hub graph
// of size nodes (hubGraph, seeds seed and seed+1) and its first count edges.
func hubEdges(t *testing.T, seed uint64, size, count int) (*lanczosOp, [][2]int) {
	g := hubGraph(t, rand.New(rand.NewPCG(seed, seed+1)), 1, size, true)
	var edges [][2]int
	g.ForEachEdge(func(i, j int, w float64) { edges = append(edges, [2]int{i, j}) })
	return newGraphOp(g), edges[:count]
}

// The Radau filter returns a proven bound (above the oracle's √q_e) on the
// classes it tries; after a window of tries that settle nothing it tries
// one class in radauStride, and after a window that settles them all it
// tries every class again.
func TestRadauFilterWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	g := hubGraph(t, rng, 1, 50, true)
	A := expmOracle(g, 1)
	f := newRadauFilter(g, 1)
	var edges [][2]int
	g.ForEachEdge(func(i, j int, _ float64) { edges = append(edges, [2]int{i, j}) })
	tried := func(calls int, floor float64) int {
		k := 0
		for c := 0; c < calls; c++ {
			e := edges[c%len(edges)]
			r := f.root(e[0], e[1], floor)
			if math.IsInf(r, 1) {
				continue
			}
			k++
			if want := math.Sqrt(columnDiffSq(A, e[0], e[1])); r < want*(1-1e-12) {
				t.Fatalf("edge %v: filter bound %.17g below the oracle %.17g", e, r, want)
			}
		}
		return k
	}
	if k := tried(radauWindow, 0); k != radauWindow {
		t.Fatalf("first window: %d of %d classes tried", k, radauWindow)
	}
	if k := tried(radauWindow*radauStride, math.Inf(1)); k != radauWindow {
		t.Fatalf("after a window that settled nothing: %d of %d classes tried, want %d", k, radauWindow*radauStride, radauWindow)
	}
	if k := tried(100, math.Inf(1)); k != 100 {
		t.Fatalf("after a window that settled all: %d of 100 classes tried", k)
	}
}

// TestEdgeClassMemo: the edge classes kept for the next call on the same
// graph and τ are the ones computed afresh (a copy: the caller's changes
// do not reach the next caller), another τ or graph computes its own, and
// Δ2 after the cost model (which fills the memo) is Δ2 without it, bit for
// bit.
func TestEdgeClassMemo(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=3000,m=3,seed=7")
	if err != nil {
		t.Fatal(err)
	}
	fresh := func(tau float64) []edgeClass {
		classMemo = edgeClassMemo{}
		return edgeClasses(g, tau, cutoff{})
	}
	want := fresh(0.5)
	got := edgeClasses(g, 0.5, cutoff{}) // from the memo
	if !slices.Equal(got, want) {
		t.Fatal("the kept classes differ from the computed ones")
	}
	got[0].u = -1
	if again := edgeClasses(g, 0.5, cutoff{}); again[0].u != want[0].u {
		t.Error("a caller's change reached the memo")
	}
	if other := edgeClasses(g, 2, cutoff{}); slices.Equal(other, want) || !slices.Equal(other, fresh(2)) {
		t.Error("another τ was given the kept classes")
	}
	opt := Options{Method: expm.Sparse, Scheme: SchemeLanczos}
	classMemo = edgeClassMemo{}
	alone, err := Graph(g, 0.5, 1, opt)
	if err != nil {
		t.Fatal(err)
	}
	classMemo = edgeClassMemo{}
	ChooseMethod(g, 0.5, opt)
	after, err := Graph(g, 0.5, 1, opt)
	if err != nil {
		t.Fatal(err)
	}
	if alone.Delta2 != after.Delta2 || alone.Edge != after.Edge {
		t.Errorf("Δ2 %v (%v) after the cost model, %v (%v) without", after.Delta2, after.Edge, alone.Delta2, alone.Edge)
	}
}

package sensitivity

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// Test graphs are built with laplacian.FromEdges here, independent of the
// generators under test elsewhere.
func mustGraph(t testing.TB, n int, edges []laplacian.Edge) *laplacian.Graph {
	t.Helper()
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func completeEdges(n int) []laplacian.Edge {
	var e []laplacian.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			e = append(e, laplacian.Edge{U: int32(i), V: int32(j), Weight: 1})
		}
	}
	return e
}

func starEdges(N int) []laplacian.Edge { // hub 0 + N−1 leaves
	var e []laplacian.Edge
	for i := 1; i < N; i++ {
		e = append(e, laplacian.Edge{U: 0, V: int32(i), Weight: 1})
	}
	return e
}

func pathEdges(n int) []laplacian.Edge {
	var e []laplacian.Edge
	for i := 0; i+1 < n; i++ {
		e = append(e, laplacian.Edge{U: int32(i), V: int32(i + 1), Weight: 1})
	}
	return e
}

func cycleEdges(n int) []laplacian.Edge {
	return append(pathEdges(n), laplacian.Edge{U: int32(n - 1), V: 0, Weight: 1})
}

// randomGraph returns an Erdős–Rényi-like graph with random weights in
// [0.2, 3) on n nodes; comps > 1 splits the nodes into that many blocks with
// no edges between them.
func randomGraph(t testing.TB, rng *rand.Rand, n int, p float64, comps int, weighted bool) *laplacian.Graph {
	var e []laplacian.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if i*comps/n != j*comps/n {
				continue
			}
			if rng.Float64() < p || j == i+1 {
				w := 1.0
				if weighted {
					w = 0.2 + 2.8*rng.Float64()
				}
				e = append(e, laplacian.Edge{U: int32(i), V: int32(j), Weight: w})
			}
		}
	}
	return mustGraph(t, n, e)
}

// Closed forms derived in docs/derivations.md §3 (unit weights, α = 1):
//   - K_n: L = nI − J, exp(−τL)b_e = e^{−τn}b_e ⇒ Δ2 = √2 e^{−τn}.
//   - star with N nodes: spectrum {0, 1^(N−2), N} ⇒ Δ2² = [N e^{−2τN} + (N−2)e^{−2τ}]/(N−1).
//   - cycle C_n: circulant ⇒ Δ2² = (1/n) Σ_k λ_k e^{−2τλ_k}, λ_k = 2 − 2cos(2πk/n).
//   - path P_n: cosine eigenbasis ⇒ q_(j,j+1) = (2/n) Σ_{k≥1} e^{−2τλ_k}[cos(πk(j+½)/n) − cos(πk(j+3/2)/n)]², λ_k = 2 − 2cos(πk/n).
func closedComplete(n int, tau float64) float64 { return math.Sqrt2 * math.Exp(-tau*float64(n)) }

func closedStar(N int, tau float64) float64 {
	fN := float64(N)
	return math.Sqrt((fN*math.Exp(-2*tau*fN) + (fN-2)*math.Exp(-2*tau)) / (fN - 1))
}

func closedCycle(n int, tau float64) float64 {
	s := 0.0
	for k := 0; k < n; k++ {
		l := 2 - 2*math.Cos(2*math.Pi*float64(k)/float64(n))
		s += l * math.Exp(-2*tau*l)
	}
	return math.Sqrt(s / float64(n))
}

// closedPath returns every edge's ‖A b_e‖ on P_n.
func closedPath(n int, tau float64) []float64 {
	fn := float64(n)
	out := make([]float64, n-1)
	for j := 0; j+1 < n; j++ {
		s := 0.0
		for k := 1; k < n; k++ {
			fk := float64(k)
			l := 2 - 2*math.Cos(math.Pi*fk/fn)
			d := math.Cos(math.Pi*fk*(float64(j)+0.5)/fn) - math.Cos(math.Pi*fk*(float64(j)+1.5)/fn)
			s += math.Exp(-2*tau*l) * d * d
		}
		out[j] = math.Sqrt(2 / fn * s)
	}
	return out
}

func argmax(v []float64) int {
	b := 0
	for i := range v {
		if v[i] > v[b] {
			b = i
		}
	}
	return b
}

// checkBracket asserts want ∈ [Delta2 − Slack − tol, Delta2 + tol].
func checkBracket(t *testing.T, name string, s Result, want, tol float64) {
	t.Helper()
	if !s.Certified {
		t.Errorf("%s: not certified", name)
	}
	if s.Slack < 0 || math.IsNaN(s.Slack) {
		t.Errorf("%s: bad slack %v", name, s.Slack)
	}
	if want > s.Delta2+tol || want < s.Delta2-s.Slack-tol {
		t.Errorf("%s: Δ2 = %.17g (slack %.3g), closed form %.17g, off by %.3g", name, s.Delta2, s.Slack, want, s.Delta2-want)
	}
}

func TestGraphSensitivityClosedForms(t *testing.T) {
	type tc struct {
		name  string
		g     *laplacian.Graph
		tau   float64
		alpha float64
		want  float64
		tol   float64 // closed form's own rounding
	}
	var cases []tc
	for _, n := range []int{2, 5, 12, 40} {
		for _, tau := range []float64{0.05, 0.3, 1} {
			cases = append(cases, tc{"complete", mustGraph(t, n, completeEdges(n)), tau, 1, closedComplete(n, tau), 1e-15})
		}
	}
	for _, N := range []int{3, 7, 30} {
		for _, tau := range []float64{0.1, 1, 4} {
			cases = append(cases, tc{"star", mustGraph(t, N, starEdges(N)), tau, 2.5, 2.5 * closedStar(N, tau), 1e-14})
		}
	}
	for _, n := range []int{3, 8, 25} {
		for _, tau := range []float64{0.2, 2} {
			cases = append(cases, tc{"cycle", mustGraph(t, n, cycleEdges(n)), tau, 0.5, 0.5 * closedCycle(n, tau), 1e-14})
		}
	}
	for _, n := range []int{2, 12, 31} {
		for _, tau := range []float64{0.3, 3} {
			p := closedPath(n, tau)
			cases = append(cases, tc{"path", mustGraph(t, n, pathEdges(n)), tau, 1, p[argmax(p)], 1e-14})
		}
	}
	for _, c := range cases {
		for _, m := range []expm.Method{expm.Dense, expm.Sparse} {
			s, err := Graph(c.g, c.tau, c.alpha, Options{Method: m})
			if err != nil {
				t.Fatalf("%s n=%d τ=%v %v: %v", c.name, c.g.N(), c.tau, m, err)
			}
			checkBracket(t, c.name+"/"+m.String(), s, c.want, c.tol)
			// The sparse slack is √(2E_K + rounding) when Δ2 ≈ 0 (K_n at large τn).
			if lim := map[expm.Method]float64{expm.Dense: 1e-6, expm.Sparse: 5e-5}[m]; s.Slack > lim {
				t.Errorf("%s/%v: slack %g too wide", c.name, m, s.Slack)
			}
			if s.Nodes != c.g.N() || s.Edges != c.g.NumEdges() || s.Components != 1 || s.Alpha != c.alpha {
				t.Errorf("%s: counts %+v", c.name, s)
			}
		}
	}
}

// The maximising path edge depends on τ: an end edge for small τ, an
// interior one for larger τ (n = 12, τ = 3: edges (2,3) or (8,9)).
func TestGraphSensitivityPathArgmax(t *testing.T) {
	g := mustGraph(t, 12, pathEdges(12))
	for _, c := range []struct {
		tau  float64
		want [][2]int
	}{
		{0.3, [][2]int{{0, 1}, {10, 11}}},
		{3, [][2]int{{2, 3}, {8, 9}}},
	} {
		p := closedPath(12, c.tau)
		j := argmax(p)
		if e := [2]int{j, j + 1}; e != c.want[0] && e != c.want[1] {
			t.Fatalf("oracle: τ=%v argmax edge %v, notes say %v", c.tau, e, c.want)
		}
		for _, m := range []expm.Method{expm.Dense, expm.Sparse} {
			s, err := Graph(g, c.tau, 1, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			if s.Edge != c.want[0] && s.Edge != c.want[1] {
				t.Errorf("τ=%v %v: maximising edge %v, want one of %v", c.tau, m, s.Edge, c.want)
			}
		}
	}
}

// expmOracle returns exp(−τL) by gonum's Padé scaling-and-squaring
// (mat.Dense.Exp), independent of the eigendecomposition and Chebyshev code.
func expmOracle(g *laplacian.Graph, tau float64) *mat.Dense {
	L := g.Laplacian().Dense()
	n := g.N()
	X := mat.NewDense(n, n, nil)
	X.Scale(-tau, L)
	var A mat.Dense
	A.Exp(X)
	return &A
}

// oracleDelta returns max_e ‖A b_e‖ from a dense A.
func oracleDelta(g *laplacian.Graph, A *mat.Dense) float64 {
	best := 0.0
	g.ForEachEdge(func(i, j int, _ float64) { best = math.Max(best, math.Sqrt(columnDiffSq(A, i, j))) })
	return best
}

// checkArgmax checks that s.Edge is an edge of g whose term α‖A b_e‖ (A the
// oracle) lies in s's bracket: the sparse schemes work on a renumbered graph
// (inLocalOrder), and the edge must come back in the caller's numbering.
func checkArgmax(t *testing.T, name string, g *laplacian.Graph, A *mat.Dense, s Result) {
	t.Helper()
	i, j := s.Edge[0], s.Edge[1]
	if i < 0 || j < 0 || g.EdgeWeight(i, j) == 0 {
		t.Errorf("%s: reported edge %v is not an edge of the graph", name, s.Edge)
		return
	}
	if v := s.Alpha * math.Sqrt(columnDiffSq(A, i, j)); v > s.Delta2*(1+1e-12) || v < (s.Delta2-s.Slack)*(1-1e-9) {
		t.Errorf("%s: edge %v has α‖A b_e‖ = %.12g outside the bracket [%.12g, %.12g]", name, s.Edge, v, s.Delta2-s.Slack, s.Delta2)
	}
}

// Dense and both sparse schemes agree within their slacks and bracket the
// independent Padé oracle, on random weighted graphs including
// disconnected ones; every cheap per-edge bound is ≥ the exact value.
func TestGraphSensitivityRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tight, total := 0, 0
	defer func() {
		// Not a validity requirement: the Radau bounds should often be
		// within 0.1 % (that is what makes pruning work).
		t.Logf("Radau bound within 0.1%% of q_e on %d of %d edges", tight, total)
		if tight == 0 {
			t.Errorf("Radau bound never tight")
		}
	}()
	for trial := 0; trial < 12; trial++ {
		n := 20 + rng.IntN(60)
		comps := 1 + trial%3
		weighted := trial%2 == 0
		g := randomGraph(t, rng, n, 0.05+0.2*rng.Float64(), comps, weighted)
		tau := []float64{0.1, 0.7, 2, 5}[trial%4]
		alpha := 0.5 + rng.Float64()
		A := expmOracle(g, tau)
		want := alpha * oracleDelta(g, A)
		d, err := Graph(g, tau, alpha, Options{Method: expm.Dense})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := Graph(g, tau, alpha, Options{Method: expm.Sparse, Scheme: SchemeColumns})
		if err != nil {
			t.Fatal(err)
		}
		lz, err := Graph(g, tau, alpha, Options{Method: expm.Sparse, Scheme: SchemeLanczos})
		if err != nil {
			t.Fatal(err)
		}
		// Padé oracle is accurate to ~1e-13 relative here.
		checkBracket(t, "dense", d, want, 1e-12)
		checkBracket(t, "sparse", sp, want, 1e-12)
		checkBracket(t, "lanczos", lz, want, 1e-12)
		checkArgmax(t, "dense", g, A, d)
		checkArgmax(t, "sparse", g, A, sp)
		checkArgmax(t, "lanczos", g, A, lz)
		if !lz.Exact || lz.Components != comps {
			t.Errorf("lanczos: exact %v, components %d want %d", lz.Exact, lz.Components, comps)
		}
		if d.Components != comps || sp.Components != comps {
			t.Errorf("components: dense %d sparse %d want %d", d.Components, sp.Components, comps)
		}
		// Brackets overlap.
		if sp.Delta2 < d.Delta2-d.Slack || d.Delta2 < sp.Delta2-sp.Slack {
			t.Errorf("dense [%g, %g] and sparse [%g, %g] disagree", d.Delta2-d.Slack, d.Delta2, sp.Delta2-sp.Slack, sp.Delta2)
		}
		if !d.Exact || !sp.Exact {
			t.Errorf("exact flags: dense %v sparse %v", d.Exact, sp.Exact)
		}
		// Every cheap bound ≥ the exact q_e (oracle).
		wmax := 0
		for v := 0; v < n; v++ {
			c, _ := g.Neighbors(v)
			wmax = max(wmax, len(c))
		}
		rw := newRadauWork(g, tau, expm.LambdaMaxBound(g), wmax)
		res := newResistanceWork(g)
		side := bridgeSides(g)
		g.ForEachEdge(func(i, j int, w float64) {
			s := columnDiffSq(A, i, j)
			if u := cheapEdgeBound(g, res, side, i, j, w, tau); u < s*(1-1e-12) {
				t.Errorf("cheap bound %g < q_e %g on edge (%d,%d)", u, s, i, j)
			}
			if u := rw.bound(i, j); u < s*(1-1e-12) {
				t.Errorf("Radau bound %g < q_e %g on edge (%d,%d)", u, s, i, j)
			} else if u < s*(1+1e-3) {
				tight++
			}
			total++
		})
		// κ2(exp(−τL)) = e^{τλ_max}: compare with the oracle's singular values.
		var svd mat.SVD
		svd.Factorize(A, mat.SVDNone)
		v := svd.Values(nil)
		// Only where the oracle's σ_min is resolved in float64.
		if k := v[0] / v[len(v)-1]; k < 1e10 && math.Abs(k-d.Kappa2) > 1e-6*k {
			t.Errorf("κ2 = %g, oracle %g", d.Kappa2, k)
		}
	}
}

// Property: for random α-neighbours f, f' (mass α moved along random
// paths, from one or several sources, total transport ≤ α),
// ‖A(f − f')‖ ≤ Δ2.
func TestGraphSensitivityNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 6; trial++ {
		g := randomGraph(t, rng, 30+rng.IntN(30), 0.08, 1+trial%2, trial%2 == 0)
		tau, alpha := 0.2+rng.Float64()*2, 0.3+rng.Float64()
		A := expmOracle(g, tau)
		s, err := Graph(g, tau, alpha, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := g.N()
		worst := 0.0
		for k := 0; k < 300; k++ {
			diff := make([]float64, n) // f − f'
			sources := 1 + rng.IntN(3)
			budget := alpha
			for src := 0; src < sources; src++ {
				mass := budget
				if src < sources-1 {
					mass = budget * rng.Float64()
				}
				budget -= mass
				// A random walk of length L; mass moves one hop per step,
				// split into L pieces of mass/L each travelling the
				// remaining steps: transport ≤ mass.
				L := 1 + rng.IntN(4)
				v := rng.IntN(n)
				walk := []int{v}
				for st := 0; st < L; st++ {
					cols, _ := g.Neighbors(v)
					if len(cols) == 0 {
						break
					}
					v = int(cols[rng.IntN(len(cols))])
					walk = append(walk, v)
				}
				hops := len(walk) - 1
				if hops == 0 {
					continue
				}
				// mass/hops units each travel to a different walk point:
				// the piece ending at walk[h] travels h hops ≤ hops; scale so
				// that total transport Σ_h (m_h · h) ≤ mass.
				per := mass / float64(hops*(hops+1)/2)
				for h := 1; h <= hops; h++ {
					diff[walk[0]] += per
					diff[walk[h]] -= per
				}
			}
			var y mat.VecDense
			y.MulVec(A, mat.NewVecDense(n, diff))
			nrm := mat.Norm(&y, 2)
			worst = math.Max(worst, nrm)
			if nrm > s.Delta2*(1+1e-12) {
				t.Fatalf("‖A(f−f')‖ = %g > Δ2 = %g", nrm, s.Delta2)
			}
		}
		// Single-hop moves of mass α along the maximising edge attain Δ2.
		i, j := s.Edge[0], s.Edge[1]
		diff := make([]float64, n)
		diff[i], diff[j] = alpha, -alpha
		var y mat.VecDense
		y.MulVec(A, mat.NewVecDense(n, diff))
		if nrm := mat.Norm(&y, 2); nrm < s.Delta2-s.Slack-1e-12 {
			t.Errorf("maximising edge gives %g < Δ2 − slack = %g", nrm, s.Delta2-s.Slack)
		}
	}
}

func TestGraphSensitivityBadInput(t *testing.T) {
	g := mustGraph(t, 3, pathEdges(3))
	var pe *ParamError
	for _, c := range []struct {
		name       string
		tau, alpha float64
		opt        Options
	}{
		{"tau", 0, 1, Options{}},
		{"tau", -1, 1, Options{}},
		{"tau", math.NaN(), 1, Options{}},
		{"tau", math.Inf(1), 1, Options{}},
		{"alpha", 1, 0, Options{}},
		{"alpha", 1, -2, Options{}},
		{"alpha", 1, math.NaN(), Options{}},
		{"alpha", 1, math.Inf(1), Options{}},
		{"tol", 1, 1, Options{Tol: -1}},
		{"method", 1, 1, Options{Method: 7}},
	} {
		_, err := Graph(g, c.tau, c.alpha, c.opt)
		if !errors.As(err, &pe) || pe.Name != c.name {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
	if _, err := Graph(nil, 1, 1, Options{}); !errors.Is(err, laplacian.ErrEmptyGraph) {
		t.Errorf("nil graph: %v", err)
	}
	big := mustGraph(t, 50, pathEdges(50))
	if _, err := Graph(big, 1, 1, Options{Method: expm.Dense, DenseLimit: 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("dense limit: %v", err)
	}
}

func TestGraphSensitivityNoEdges(t *testing.T) {
	g := mustGraph(t, 4, nil)
	s, err := Graph(g, 1, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Delta2 != 0 || !s.Certified || s.Components != 4 || s.Edges != 0 {
		t.Errorf("%+v", s)
	}
}

// A time budget that ends at once still returns a proven upper bound (from
// the per-edge bounds alone: no column block starts).
func TestGraphSensitivityTimeBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := randomGraph(t, rng, 120, 0.05, 1, true)
	tau := 0.8
	want := oracleDelta(g, expmOracle(g, tau))
	calls := 0
	s, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeColumns, TimeBudget: 1, Progress: func(done, total int) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if s.Delta2 < want || !s.Certified {
		t.Errorf("budgeted bound %g < exact %g", s.Delta2, want)
	}
	if s.Exact || s.Method != "bound-and-refine" || calls != 0 {
		t.Errorf("exact=%v method=%s progress calls=%d", s.Exact, s.Method, calls)
	}
}

// The Hermite interpolant with enclosed divided differences lies above
// f(x) = e^{−2τx} on [0, B] and touches it at the nodes.
func TestHermiteMajorant(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 200; trial++ {
		tau := 0.05 + 3*rng.Float64()
		B := 1 + 60*rng.Float64()
		th := [3]float64{B * rng.Float64(), B * rng.Float64(), B * rng.Float64()}
		d, ok := hermiteExpDD(tau, th)
		if !ok {
			continue
		}
		z := [7]float64{0, th[0], th[0], th[1], th[1], th[2], th[2]}
		P := func(x float64, pick func(interval) float64) float64 {
			s, w := 0.0, 1.0
			for m := 0; m < 7; m++ {
				s += pick(d[m]) * w
				w *= x - z[m]
			}
			return s
		}
		for k := 0; k < 50; k++ {
			x := B * rng.Float64()
			f := math.Exp(-2 * tau * x)
			// Upper end of the enclosure where ω ≥ 0 … use the midpoint and
			// allow the enclosure width.
			mid := P(x, func(v interval) float64 { return (v.lo + v.hi) / 2 })
			if mid < f-1e-9 {
				t.Fatalf("τ=%v θ=%v: P(%v) = %v < f = %v", tau, th, x, mid, f)
			}
		}
		for _, x := range th {
			mid := P(x, func(v interval) float64 { return (v.lo + v.hi) / 2 })
			if f := math.Exp(-2 * tau * x); math.Abs(mid-f) > 1e-8 {
				t.Errorf("τ=%v θ=%v: P(%v) = %v ≠ f = %v", tau, th, x, mid, f)
			}
		}
	}
}

// pathKernel returns exp(−τL) of the path P_a from its cosine eigenbasis
// (docs/derivations.md §3), independent of the package's code.
func pathKernel(a int, tau float64) [][]float64 {
	fa := float64(a)
	A := make([][]float64, a)
	for i := range A {
		A[i] = make([]float64, a)
		for j := range A[i] {
			s := 1.0
			for k := 1; k < a; k++ {
				fk := float64(k)
				l := 2 - 2*math.Cos(math.Pi*fk/fa)
				s += 2 * math.Exp(-tau*l) * math.Cos(math.Pi*fk*(float64(i)+0.5)/fa) * math.Cos(math.Pi*fk*(float64(j)+0.5)/fa)
			}
			A[i][j] = s / fa
		}
	}
	return A
}

// On the grid P_a × P_b, exp(−τL) = exp(−τL_a) ⊗ exp(−τL_b), so an edge
// ((x,y),(x+1,y)) has q = ‖A_a(e_x − e_{x+1})‖²·‖A_b e_y‖², and
// Δ2² = max(max_x q^a_x · max_y ‖A_b e_y‖², max_y q^b_y · max_x ‖A_a e_x‖²).
func TestGraphSensitivityGridPruned(t *testing.T) {
	grid := func(a, b int) *laplacian.Graph {
		var edges []laplacian.Edge
		id := func(x, y int) int32 { return int32(x*b + y) }
		for x := 0; x < a; x++ {
			for y := 0; y < b; y++ {
				if x+1 < a {
					edges = append(edges, laplacian.Edge{U: id(x, y), V: id(x+1, y), Weight: 1})
				}
				if y+1 < b {
					edges = append(edges, laplacian.Edge{U: id(x, y), V: id(x, y+1), Weight: 1})
				}
			}
		}
		return mustGraph(t, a*b, edges)
	}
	pathStats := func(A [][]float64) (qmax, colmax float64) {
		n := len(A)
		for x := 0; x < n; x++ {
			c, d := 0.0, 0.0
			for r := 0; r < n; r++ {
				c += A[r][x] * A[r][x]
				if x+1 < n {
					dd := A[r][x] - A[r][x+1]
					d += dd * dd
				}
			}
			colmax, qmax = math.Max(colmax, c), math.Max(qmax, d)
		}
		return
	}
	// At τ = 0.5 on the large grid the corner edges stand out and the
	// Radau bounds prune the rest (this exercises that path); at τ = 3 on a
	// small grid every column is computed.
	for _, c := range []struct {
		a, b  int
		tau   float64
		prune bool
	}{{60, 64, 0.5, true}, {20, 24, 3, false}} {
		a, b, tau := c.a, c.b, c.tau
		g := grid(a, b)
		qa, ca := pathStats(pathKernel(a, tau))
		qb, cb := pathStats(pathKernel(b, tau))
		want := math.Sqrt(math.Max(qa*cb, qb*ca))
		s, err := Graph(g, tau, 1, Options{Method: expm.Sparse})
		if err != nil {
			t.Fatal(err)
		}
		checkBracket(t, "grid", s, want, 1e-13)
		if !s.Exact {
			t.Errorf("τ=%v: not exact", tau)
		}
		if c.prune && s.Method != "bound-and-refine" {
			t.Errorf("τ=%v: method %s, expected pruning", tau, s.Method)
		}
	}
}

// TestChebColumnsOnBall checks the column block restricted to the growing
// ball against the Padé oracle C = exp(−2τL) on a weighted grid whose
// diameter exceeds the Chebyshev degree (so the ball never fills and the
// restricted steps are what is tested), with columns from both ends and the
// middle; the scratch blocks must come back zero for the next block.
func TestChebColumnsOnBall(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const a, b = 8, 150
	var edges []laplacian.Edge
	for x := 0; x < a; x++ {
		for y := 0; y < b; y++ {
			if x+1 < a {
				edges = append(edges, laplacian.Edge{U: int32(x*b + y), V: int32((x+1)*b + y), Weight: 0.5 + 1.5*rng.Float64()})
			}
			if y+1 < b {
				edges = append(edges, laplacian.Edge{U: int32(x*b + y), V: int32(x*b + y + 1), Weight: 0.5 + 1.5*rng.Float64()})
			}
		}
	}
	g := mustGraph(t, a*b, edges)
	tau := 0.1
	r := newSparseRefiner(g, tau, 1, Options{}.withDefaults())
	n := g.N()
	C := expmOracle(g, 2*tau)
	kern, bl, tw := newBlockKernel(g), newBall(g), falseTwins(g)
	diag, off := make([]float64, n), make([]float64, r.rowStart[n])
	t0, t1 := make([]float64, n*columnBlock), make([]float64, n*columnBlock)
	blk := []int{0, 1, b, n - 1, n - 2, 4*b + 75, 3*b + 76}
	if !chebColumns(kern, bl, blk, tw, r.coef, r.B, r.rowStart, diag, off, t0, t1, cutoff{}) {
		t.Fatal("block abandoned without a deadline")
	}
	if bl.full || len(bl.nodes) >= n {
		t.Fatalf("the ball covered %d of %d nodes: the test needs a larger diameter", len(bl.nodes), n)
	}
	tol := r.qErr / 4
	for _, i := range blk {
		if d := math.Abs(diag[i] - C.At(i, i)); d > tol {
			t.Errorf("C[%d][%d] = %.15g, oracle %.15g (off by %.2g > %.2g)", i, i, diag[i], C.At(i, i), d, tol)
		}
		cols, _ := g.Neighbors(i)
		for k, j := range cols {
			if d := math.Abs(off[r.rowStart[i]+k] - C.At(i, int(j))); d > tol {
				t.Errorf("C[%d][%d] off by %.2g", i, j, d)
			}
		}
	}
	for k := range t0 {
		if t0[k] != 0 || t1[k] != 0 {
			t.Fatalf("scratch row %d not cleared", k/columnBlock)
		}
	}
}

// TestBlockPicker checks the column blocks on a long path whose schedule
// alternates between its two ends: every scheduled node comes out exactly
// once, each block starts with the earliest node not yet taken and stays
// within pickWindow of it, blocks are full while enough nodes remain, and
// a block holds the nearest nodes rather than the schedule's next ones (so
// it spans few hops).
func TestBlockPicker(t *testing.T) {
	const n = 2000
	g := mustGraph(t, n, pathEdges(n))
	var schedule []int
	for k := 0; k < 300; k++ {
		schedule = append(schedule, k, n-1-k) // 0, n−1, 1, n−2, …
	}
	p := newBlockPicker(g, schedule)
	pos := make(map[int]int, len(schedule))
	for k, v := range schedule {
		pos[v] = k
	}
	seen := map[int]bool{}
	left := len(schedule)
	for {
		blk := p.next()
		if len(blk) == 0 {
			break
		}
		first := -1
		for _, v := range schedule {
			if !seen[v] {
				first = v
				break
			}
		}
		if blk[0] != first {
			t.Fatalf("block starts with %d, want the earliest untaken %d", blk[0], first)
		}
		lo, hi := n, -1
		for _, v := range blk {
			if seen[v] {
				t.Fatalf("node %d taken twice", v)
			}
			seen[v] = true
			if pos[v]-pos[first] >= pickWindow {
				t.Errorf("node %d is %d places after the block's first", v, pos[v]-pos[first])
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if len(blk) != min(columnBlock, left) {
			t.Errorf("block of %d with %d left", len(blk), left)
		}
		left -= len(blk)
		// While the first node's end of the path still had a full block,
		// the block must stay there.
		side := 0
		for v := range seen {
			if (v < n/2) == (first < n/2) {
				side++
			}
		}
		if side <= 300-columnBlock && hi-lo > 2*columnBlock {
			t.Errorf("block %v spans %d hops: not the nearest nodes", blk, hi-lo)
		}
	}
	if len(seen) != len(schedule) {
		t.Errorf("%d of %d scheduled nodes came out", len(seen), len(schedule))
	}
}

// TestMaxUnrefinedWhileUnsorted: while the Radau bounds lower some edges'
// bounds, the order is stale, and the anytime bound must be the largest
// bound of any unrefined edge — not that of the head of the old order.
func TestMaxUnrefinedWhileUnsorted(t *testing.T) {
	g := mustGraph(t, 40, pathEdges(40))
	var got Interim
	r := newSparseRefiner(g, 0.5, 1, Options{Status: func(st Interim) { got = st }}.withDefaults())
	r.prepare()
	r.sorted = false
	head, other := r.order[0], r.order[len(r.order)-1]
	r.edges[head].u = 1e-3 // a Radau bound lowered the head
	r.edges[other].u = 1.5 // a tail edge's bound is now the largest
	if u := r.maxUnrefined(); u != 1.5 {
		t.Fatalf("maxUnrefined = %g, want 1.5", u)
	}
	r.status()
	if got.Delta2 < math.Sqrt(1.5) {
		t.Errorf("status Δ2 %g below √1.5", got.Delta2)
	}
	r.refined[other] = true
	r.sorted = true
	r.sortByBound()
	r.ptr = 0
	r.advance()
	want := 0.0
	for e := range r.edges {
		if !r.refined[e] {
			want = math.Max(want, r.edges[e].u)
		}
	}
	if u := r.maxUnrefined(); u != want {
		t.Errorf("sorted: maxUnrefined = %g, want %g", u, want)
	}
}

// smallWorld against breadth-first distances computed here: at least two
// of the starts 0, n/4, n/2, 3n/4 have more than n/2 nodes within K hops.
func TestSmallWorld(t *testing.T) {
	within := func(g *laplacian.Graph, s, K int) int {
		dist := make([]int, g.N())
		for i := range dist {
			dist[i] = -1
		}
		dist[s] = 0
		queue, count := []int{s}, 0
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			if dist[u] > K {
				continue
			}
			count++
			cols, _ := g.Neighbors(u)
			for _, v := range cols {
				if dist[v] < 0 {
					dist[v] = dist[u] + 1
					queue = append(queue, int(v))
				}
			}
		}
		return count
	}
	rng := rand.New(rand.NewPCG(21, 22))
	var graphs []*laplacian.Graph
	for _, spec := range []string{"path:n=100", "cycle:n=61", "grid:rows=12,cols=15", "star:n=40", "complete:n=9"} {
		g, _, err := laplacian.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	for trial := 0; trial < 8; trial++ {
		graphs = append(graphs, randomGraph(t, rng, 30+rng.IntN(50), 0.02+0.1*rng.Float64(), 1+trial%3, false))
	}
	// Exactly two starts (0 and 10 of 40) in the component of more than
	// half the nodes: a path over 0..19, 38, 39; the rest a second path.
	var e []laplacian.Edge
	big := []int32{38, 39}
	for v := int32(0); v < 20; v++ {
		big = append(big, v)
	}
	for k := 1; k < len(big); k++ {
		e = append(e, laplacian.Edge{U: big[k-1], V: big[k], Weight: 1})
	}
	for v := int32(21); v < 38; v++ {
		e = append(e, laplacian.Edge{U: v - 1, V: v, Weight: 1})
	}
	graphs = append(graphs, mustGraph(t, 40, e))
	seen := [2]int{}
	for _, g := range graphs {
		n := g.N()
		for _, K := range []int{1, 2, 3, 5, 8, 13, 30, 60} {
			full := 0
			for q := range 4 {
				if 2*within(g, q*n/4, K) > n {
					full++
				}
			}
			want := full >= 2
			if got := smallWorld(g, K); got != want {
				t.Errorf("n=%d K=%d: smallWorld %v, want %v (%d of 4 starts reach half)", n, K, got, want, full)
			}
			if want {
				seen[1]++
			} else {
				seen[0]++
			}
		}
	}
	if seen[0] == 0 || seen[1] == 0 {
		t.Errorf("cases not both seen: %v", seen)
	}
}

// radauScreen settles no class whose exact q_e (Padé oracle) exceeds the
// guess, keeps each with a bound ≥ its q_e and above the guess, and
// reports a settled share in [0, 1].
func TestRadauScreen(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := 0; trial < 4; trial++ {
		g := randomGraph(t, rng, 40+rng.IntN(40), 0.06+0.1*rng.Float64(), 1+trial%2, trial%2 == 0)
		tau := []float64{0.3, 1.5}[trial%2]
		A := expmOracle(g, tau)
		cand := edgeClasses(g, tau, cutoff{})
		qs := make([]float64, len(cand))
		for k, c := range cand {
			qs[k] = columnDiffSq(A, c.i, c.j)
		}
		sorted := append([]float64(nil), qs...)
		sort.Float64s(sorted)
		guess := sorted[len(sorted)/2]
		kept, settled, perClass := radauScreen(g, tau, cand, guess)
		above := 0
		for k, c := range cand {
			if c.u > guess && qs[k] > guess {
				above++
			}
		}
		if len(kept) < above {
			t.Errorf("trial %d: %d classes kept, but %d have q_e above the guess", trial, len(kept), above)
		}
		for _, c := range kept {
			if q := columnDiffSq(A, c.i, c.j); c.u < q*(1-1e-12) || !(c.u > guess) {
				t.Errorf("trial %d: kept class (%d, %d) with bound %g, q_e %g, guess %g", trial, c.i, c.j, c.u, q, guess)
			}
		}
		if !(settled >= 0 && settled <= 1) || !(perClass > 0) {
			t.Errorf("trial %d: settled %g, %g s per class", trial, settled, perClass)
		}
	}
}

package sensitivity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// At large τ, Δ2 is set by the slowest modes and is tiny (√2e^{−500} on
// K_5 at τ = 100); the dense and slow-modes brackets must stay relative
// there: the closed forms of docs/derivations.md §3 lie inside them and
// the slack is at most ExactRelativeSlack.
func TestSensitivityLargeTauClosedForms(t *testing.T) {
	type tc struct {
		name string
		g    *laplacian.Graph
		tau  float64
		want float64
	}
	var cases []tc
	for _, tau := range []float64{5, 20, 100} {
		cases = append(cases,
			tc{"complete", mustGraph(t, 5, completeEdges(5)), tau, closedComplete(5, tau)},
			tc{"star", mustGraph(t, 30, starEdges(30)), tau, closedStar(30, tau)},
			tc{"cycle", mustGraph(t, 25, cycleEdges(25)), tau, closedCycle(25, tau)},
		)
		p := closedPath(31, tau)
		cases = append(cases, tc{"path", mustGraph(t, 31, pathEdges(31)), tau, p[argmax(p)]})
	}
	for _, c := range cases {
		for _, opt := range []Options{{Method: expm.Dense}, {Method: expm.Sparse, Scheme: SchemeSlowModes}} {
			s, err := Graph(c.g, c.tau, 1, opt)
			if err != nil {
				t.Fatalf("%s τ=%v %v: %v", c.name, c.tau, opt.Scheme, err)
			}
			lo := s.Delta2 - s.Slack
			if c.want > s.Delta2*(1+1e-12) || c.want < lo*(1-1e-12) {
				t.Errorf("%s τ=%v %s: closed form %.17g outside [%.17g, %.17g]", c.name, c.tau, s.Method, c.want, lo, s.Delta2)
			}
			if !s.Exact || s.RelativeSlack > ExactRelativeSlack {
				t.Errorf("%s τ=%v %s: relative slack %g (exact %v)", c.name, c.tau, s.Method, s.RelativeSlack, s.Exact)
			}
		}
	}
}

// On random graphs of several components, weighted and not, the slow-modes
// bracket (a few modes and a count certificate) and the dense one (all
// modes) must intersect, at τ where Δ2 ranges from 10⁻² to 10⁻⁴⁰.
func TestSlowModesAgreeWithDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 6 {
		n := 60 + rng.IntN(80)
		comps := 1 + trial%3
		g := randomGraph(t, rng, n, 0.04+0.1*rng.Float64(), comps, trial%2 == 0)
		tau := []float64{3, 30, 100}[trial%3]
		d, err := Graph(g, tau, 1, Options{Method: expm.Dense})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeSlowModes})
		if err != nil {
			t.Fatal(err)
		}
		if s.Delta2 < d.Delta2-d.Slack || d.Delta2 < s.Delta2-s.Slack {
			t.Errorf("trial %d τ=%v: slow modes [%g, %g], dense [%g, %g]", trial, tau, s.Delta2-s.Slack, s.Delta2, d.Delta2-d.Slack, d.Delta2)
		}
		if !s.Exact || !d.Exact {
			t.Errorf("trial %d τ=%v: slack relative %g (slow modes), %g (dense)", trial, tau, s.RelativeSlack, d.RelativeSlack)
		}
	}
}

// The count certificate must refuse a basis that misses a slow mode: with
// the lowest nonzero eigenvector left out, L − μI + σQ̂Q̂ᵀ has a negative
// eigenvalue near λ₂ − μ and no floating-point Cholesky can complete.
func TestCountCertificateRefusesMissingMode(t *testing.T) {
	n := 40
	g := mustGraph(t, n, pathEdges(n))
	// Exact eigenvectors of the path: u_k(j) = cos(πk(j+½)/n), λ_k = 2 − 2cos(πk/n).
	m := 6
	basis := func(skip int) ([]float64, int) {
		var cols []int
		for k := 1; k <= m; k++ {
			if k != skip {
				cols = append(cols, k)
			}
		}
		q := make([]float64, n*len(cols))
		for c, k := range cols {
			norm := math.Sqrt(2 / float64(n))
			for j := 0; j < n; j++ {
				q[j*len(cols)+c] = norm * math.Cos(math.Pi*float64(k)*(float64(j)+0.5)/float64(n))
			}
		}
		return q, len(cols)
	}
	lam := func(k int) float64 { return 2 - 2*math.Cos(math.Pi*float64(k)/float64(n)) }
	mu := (lam(m) + lam(m+1)) / 2
	never := func() bool { return false }
	q, k := basis(0)
	muCert, ok := countCertificate(g, q, k, mu, never)
	if !ok || muCert > mu || muCert < lam(m) {
		t.Fatalf("full basis: certificate %v, μ' = %g (μ = %g, λ_%d = %g)", ok, muCert, mu, m, lam(m))
	}
	q, k = basis(1)
	if muCert, ok := countCertificate(g, q, k, mu, never); ok {
		t.Errorf("basis without u_1 certified μ' = %g although λ_1 = %g lies below", muCert, lam(1))
	}
}

// modeBrackets must hold for any basis, however rough, and any proven cut:
// the path P_40's exact eigenvectors u_1..u_m, perturbed by noise of size
// noise, with the exact λ_{m+1} as the cut. Few modes at small τ leave a
// tail of e^{−τλ_{m+1}} that only the tail term covers; the noise makes
// residuals that the projection terms cover, and Ritz values shifted by
// shift (exact vectors) residuals that only the Duhamel term covers. The closed
// form's maximum must lie in every bracket, and the bracket must tighten
// as the basis improves.
func TestModeBracketsRoughBasis(t *testing.T) {
	n := 40
	g := mustGraph(t, n, pathEdges(n))
	lam := func(k int) float64 { return 2 - 2*math.Cos(math.Pi*float64(k)/float64(n)) }
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		m                 int
		tau, noise, shift float64
	}{{3, 3, 0, 0}, {3, 3, 1e-3, 0}, {8, 10, 1e-3, 0}, {8, 40, 0, 0}, {39, 1, 1e-4, 0}, {39, 2, 0, 1e-3}, {8, 40, 0, -1e-4}} {
		q := make([]float64, n*c.m)
		theta := make([]float64, c.m)
		for k := 1; k <= c.m; k++ {
			theta[k-1] = lam(k) + c.shift
			for j := 0; j < n; j++ {
				q[j*c.m+k-1] = math.Sqrt(2/float64(n))*math.Cos(math.Pi*float64(k)*(float64(j)+0.5)/float64(n)) + c.noise*rng.NormFloat64()
			}
		}
		projectOffNull(q, c.m, make([]int32, n), 1)
		muCert := math.Inf(1)
		if c.m < n-1 {
			muCert = lam(c.m + 1)
		}
		up, lo, _, ok := modeBrackets(g, newModeBasis(g, q, c.m, theta), c.tau, muCert)
		p := closedPath(n, c.tau)
		want := p[argmax(p)]
		if !ok {
			t.Fatalf("m=%d τ=%v noise=%g: no certificate", c.m, c.tau, c.noise)
		}
		if want > up || want < lo {
			t.Errorf("m=%d τ=%v noise=%g: closed form %.17g outside [%.17g, %.17g]", c.m, c.tau, c.noise, want, lo, up)
		}
		if c.noise == 0 && c.shift == 0 && c.m == 8 && (up-lo) > 1e-6*up {
			t.Errorf("m=%d τ=%v noise=%g: bracket [%g, %g] not tight", c.m, c.tau, c.noise, lo, up)
		}
	}
}

// A time budget stops the slow modes too: forced with a budget too short
// for them, the method still returns a proven upper bound (the fallback's
// cheap bounds), at or above the dense-expm oracle, and does not claim
// to be exact.
func TestSlowModesTimeBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := randomGraph(t, rng, 120, 0.05, 1, true)
	tau := 5.0
	want := oracleDelta(g, expmOracle(g, tau))
	s, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeSlowModes, TimeBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Delta2 < want*(1-1e-12) || !s.Certified {
		t.Errorf("budgeted bound %g < exact %g", s.Delta2, want)
	}
	if s.Exact || s.Method == "slow-modes" {
		t.Errorf("exact=%v method=%s under a 1 ns budget", s.Exact, s.Method)
	}
}

// Where Δ2 may be tiny (Jensen floor < 10⁻⁶) on 301–5 000 nodes, Auto
// plans the exact-at-any-τ methods: the panels, or the slow modes first
// where few modes are needed (τ = 100); not with the dense method
// disabled, which keeps the sparse path; up to 300 nodes the dense method.
func TestPlanTinyDelta2(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=400,m=3,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	if p := ChooseMethod(g, 3, Options{}); p.Scheme != SchemePanels && p.Scheme != SchemeSlowModes {
		t.Errorf("τ = 3: plan %+v, want panels or slow modes", p)
	}
	if p := ChooseMethod(g, 3, Options{DenseLimit: -1}); p.Scheme == SchemePanels || p.Scheme == SchemeSlowModes || p.Method == expm.Dense {
		t.Errorf("τ = 3, dense disabled: plan %+v, want a sparse scheme", p)
	}
	if p := ChooseMethod(g, 0.01, Options{}); p.Scheme == SchemePanels || p.Scheme == SchemeSlowModes {
		t.Errorf("τ = 0.01: plan %+v, want the usual plan (Δ2 is not tiny)", p)
	}
	tiny, _, err := laplacian.Generate("pa:n=250,m=3,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	if p := ChooseMethod(tiny, 20, Options{}); p.Method != expm.Dense {
		t.Errorf("n = 250, τ = 20: plan %+v, want dense", p)
	}
}

// The panel-wise filter (AVX2 kernel on n×16 panels) must compute what the
// row-major block filter computes: the recurrence acts column by column
// and both kernels round every operation the same way, so the results
// agree to the bit, for a block split over workers (6 panels) and one
// split by rows (2 panels), on a weighted and an unweighted graph.
func TestFilterPanelsMatchesBlock(t *testing.T) {
	pa, _, err := laplacian.Generate("pa:n=700,m=3,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var edges []laplacian.Edge
	for i := 1; i < 300; i++ {
		edges = append(edges, laplacian.Edge{U: int32(rng.IntN(i)), V: int32(i), Weight: 0.5 + rng.Float64()})
	}
	weighted, err := laplacian.FromEdges(300, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*laplacian.Graph{pa, weighted} {
		comps, label := g.Components()
		B := expm.LambdaMaxBound(g)
		for _, p := range []int{32, 96} {
			n := g.N()
			x := make([]float64, n*p)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			want := append([]float64(nil), x...)
			want, _ = filterBlock(g.Laplacian(), want, make([]float64, n*p), p, 40, 0.3, 2, B, label, comps, func() bool { return false })
			filterPanels(newBlockKernel(g), x, p, 40, 0.3, 2, B, label, comps, func() bool { return false })
			for i := range x {
				if x[i] != want[i] {
					t.Fatalf("n=%d p=%d: entry %d is %v, the block filter's %v", n, p, i, x[i], want[i])
				}
			}
		}
	}
}

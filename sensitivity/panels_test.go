package sensitivity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The panel bracket must hold the closed forms of docs/derivations.md §3
// (complete graph, star, cycle, path) at τ from 0.01 to 100, where Δ2
// runs from O(1) down to 10⁻²¹⁷, and be exact (relative slack ≤ 10⁻⁶).
func TestPanelsClosedForms(t *testing.T) {
	type tc struct {
		name string
		g    *laplacian.Graph
		want func(float64) float64
	}
	cases := []tc{
		{"complete", mustGraph(t, 5, completeEdges(5)), func(tau float64) float64 { return closedComplete(5, tau) }},
		{"star", mustGraph(t, 30, starEdges(30)), func(tau float64) float64 { return closedStar(30, tau) }},
		{"cycle", mustGraph(t, 25, cycleEdges(25)), func(tau float64) float64 { return closedCycle(25, tau) }},
		{"path", mustGraph(t, 31, pathEdges(31)), func(tau float64) float64 { p := closedPath(31, tau); return p[argmax(p)] }},
	}
	for _, c := range cases {
		for _, tau := range []float64{0.01, 1, 5, 20, 100} {
			s, err := Graph(c.g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemePanels})
			if err != nil {
				t.Fatalf("%s τ=%v: %v", c.name, tau, err)
			}
			want := c.want(tau)
			lo := s.Delta2 - s.Slack
			if want > s.Delta2*(1+1e-12) || want < lo*(1-1e-12) {
				t.Errorf("%s τ=%v: closed form %.17g outside [%.17g, %.17g]", c.name, tau, want, lo, s.Delta2)
			}
			if s.Method != "chebyshev-panels" || !s.Exact || s.RelativeSlack > ExactRelativeSlack {
				t.Errorf("%s τ=%v: %s relative slack %g (exact %v)", c.name, tau, s.Method, s.RelativeSlack, s.Exact)
			}
		}
	}
}

// On random graphs (several components, weighted and not) and a
// preferential-attachment graph, the panel bracket and the dense one (all
// eigenpairs, §2.8) must intersect, both exact, at τ from 0.01 to 100:
// Δ2 from O(1) to below 10⁻⁵⁰.
func TestPanelsAgreeWithDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 9))
	var graphs []*laplacian.Graph
	for trial := range 4 {
		graphs = append(graphs, randomGraph(t, rng, 80+rng.IntN(80), 0.04+0.1*rng.Float64(), 1+trial%3, trial%2 == 0))
	}
	pa, _, err := laplacian.Generate("pa:n=300,m=3,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	graphs = append(graphs, pa)
	for gi, g := range graphs {
		for _, tau := range []float64{0.01, 1, 20, 100} {
			d, err := Graph(g, tau, 1, Options{Method: expm.Dense})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemePanels})
			if err != nil {
				t.Fatal(err)
			}
			if s.Delta2 < d.Delta2-d.Slack || d.Delta2 < s.Delta2-s.Slack {
				t.Errorf("graph %d τ=%v: panels [%.12g, %.12g], dense [%.12g, %.12g]", gi, tau, s.Delta2-s.Slack, s.Delta2, d.Delta2-d.Slack, d.Delta2)
			}
			// Where Δ2 underflows (a heavy weighted graph at τ = 100:
			// e^{−τλ₂} < 10⁻³⁰⁰) neither bracket is relative; elsewhere both must be.
			if d.Delta2 > 1e-280 && (!s.Exact || !d.Exact) {
				t.Errorf("graph %d τ=%v: Δ2 %g, relative slack %g (panels), %g (dense)", gi, tau, d.Delta2, s.RelativeSlack, d.RelativeSlack)
			}
		}
	}
}

// The Collatz–Wielandt bound must lie above ρ(D + W) (hence λ_max(L)),
// computed by a dense eigendecomposition, and not above the older bounds.
func TestSpectralRadiusBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 6 {
		g := randomGraph(t, rng, 40+rng.IntN(60), 0.05+0.2*rng.Float64(), 1+trial%3, trial%2 == 1)
		n := g.N()
		q := mat.NewSymDense(n, nil)
		g.ForEachEdge(func(i, j int, w float64) { q.SetSym(i, j, w) })
		for i := 0; i < n; i++ {
			q.SetSym(i, i, g.Degree(i))
		}
		var es mat.EigenSym
		if !es.Factorize(q, false) {
			t.Fatal("eigen")
		}
		vals := es.Values(nil)
		rho := vals[len(vals)-1]
		b := spectralRadiusBound(g)
		if b < rho*(1-1e-14) || b > expm.LambdaMaxBound(g) {
			t.Errorf("trial %d: bound %.17g, ρ(Q) %.17g, older bound %.17g", trial, b, rho, expm.LambdaMaxBound(g))
		}
	}
}

// The count certificate's blocked Cholesky with the trailing update on two
// goroutines must reproduce LAPACK's (gonum Dpotrf) factor of an SPD
// matrix large enough to take the parallel path.
func TestCholeskyStoppableMatchesPotrf(t *testing.T) {
	const n = 600
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n*n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	a := make([]float64, n*n)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: x},
		blas64.General{Rows: n, Cols: n, Stride: n, Data: x}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: a})
	for i := 0; i < n; i++ {
		a[i*n+i] += n
	}
	ref := append([]float64(nil), a...)
	if _, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: ref}); !ok {
		t.Fatal("potrf")
	}
	got, ok := choleskyStoppable(a, n, func() bool { return false })
	if !ok {
		t.Fatal("choleskyStoppable broke down")
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if d := math.Abs(got[i*n+j] - ref[i*n+j]); d > 1e-10*math.Abs(ref[i*n+i]) {
				t.Fatalf("U[%d,%d] = %g, Potrf %g", i, j, got[i*n+j], ref[i*n+j])
			}
		}
	}
}

// A closed Done channel stops the panel method: Graph returns ErrStopped.
func TestPanelsStop(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=400,m=3,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	close(done)
	if _, err := Graph(g, 20, 1, Options{Method: expm.Sparse, Scheme: SchemePanels, Done: done}); err != ErrStopped {
		t.Fatalf("err = %v, want ErrStopped", err)
	}
}

package recovery

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// eigenHeat is exp(−τL) formed from gonum's symmetric eigendecomposition
// of the dense Laplacian, Q·diag(e^{−τλ})·Qᵀ: an oracle independent of
// the Chebyshev action the operator models apply.
func eigenHeat(t *testing.T, g *laplacian.Graph, tau float64) *mat.Dense {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(g.Laplacian().Dense(), true) {
		t.Fatal("eigendecomposition failed")
	}
	lam := es.Values(nil)
	var q mat.Dense
	es.VectorsTo(&q)
	n := g.N()
	d := mat.NewDiagDense(n, nil)
	for k, l := range lam {
		d.SetDiag(k, math.Exp(-tau*l))
	}
	var qd, a mat.Dense
	qd.Mul(&q, d)
	a.Mul(&qd, q.T())
	return &a
}

// twoComponents is a random connected graph of 40 nodes beside a path of
// 12: the probed norms' per-component correction is exercised.
func twoComponents(t *testing.T) *laplacian.Graph {
	rng := rand.New(rand.NewPCG(7, 7))
	edges := randomEdges(40, 50, rng)
	for _, e := range pathEdges(12) {
		edges = append(edges, laplacian.Edge{U: e.U + 40, V: e.V + 40, Weight: 1})
	}
	return mustGraph(t, 52, edges)
}

// reportingRows draws the sensors that report when a fraction q is
// missing.
func reportingRows(n int, q float64, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := rng.Perm(n)[:n-int(math.Round(q*float64(n)))]
	slices.Sort(rows)
	return rows
}

// TestRowsOperatorIsDenseRows: the restricted operator model (no dense
// storage) applies M_S = R_S·exp(−τL) and M_Sᵀ as the dense oracle's
// rows do, one vector at a time and 32 at a time (ApplyTEach), and its
// exact column norms are Σ_{i∈S} A_is² of the oracle — on a graph of two
// components, with 10% and 50% of the sensors missing and in a shuffled
// order.
func TestRowsOperatorIsDenseRows(t *testing.T) {
	g := twoComponents(t)
	n := g.N()
	const tau = 0.8
	A := eigenHeat(t, g, tau)
	op, err := NewGraphModel(g, tau, GraphOptions{DenseLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0.1, 0.5} {
		rows := reportingRows(n, q, uint64(100*q))
		rand.New(rand.NewPCG(3, 3)).Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		sub, err := op.Rows(rows)
		if err != nil {
			t.Fatal(err)
		}
		if !sub.Restricted() || sub.M() != len(rows) || sub.N() != n {
			t.Fatalf("q = %v: restricted %v, %d×%d", q, sub.Restricted(), sub.M(), sub.N())
		}
		rng := rand.New(rand.NewPCG(11, 11))
		f, z := gauss(rng, 1, n), gauss(rng, 1, len(rows))
		mf, mtz := make([]float64, len(rows)), make([]float64, n)
		sub.Apply(mf, f)
		sub.ApplyT(mtz, z)
		const tol = 1e-9
		for k, i := range rows {
			want := mat.Dot(A.RowView(i), mat.NewVecDense(n, f))
			if math.Abs(mf[k]-want) > tol {
				t.Errorf("q = %v: (M_S f)_%d = %v, oracle %v", q, k, mf[k], want)
			}
		}
		for s := range n {
			want := 0.0
			for k, i := range rows {
				want += A.At(i, s) * z[k]
			}
			if math.Abs(mtz[s]-want) > tol {
				t.Errorf("q = %v: (M_Sᵀ z)_%d = %v, oracle %v", q, s, mtz[s], want)
			}
		}
		each := make([][]float64, 40)
		sub.ApplyTEach(len(each), func(d int, v []float64) {
			for k := range v {
				v[k] = float64(d+1) * z[k]
			}
		}, func(d int, c []float64) { each[d] = slices.Clone(c) })
		for d, c := range each {
			for s := range n {
				if math.Abs(c[s]-float64(d+1)*mtz[s]) > tol*float64(d+1) {
					t.Fatalf("q = %v: ApplyTEach vector %d entry %d = %v, want %v", q, d, s, c[s], float64(d+1)*mtz[s])
				}
			}
		}
		if sub.ApplyBlock(make([]float64, len(rows)), make([]float64, n), 1) {
			t.Errorf("q = %v: ApplyBlock applied a restricted model as if square", q)
		}
		norms, approx := sub.ColumnNorms2()
		if approx {
			t.Fatalf("q = %v: norms estimated on a 52-node graph (ExactRowNormsWork)", q)
		}
		for s := range n {
			want := 0.0
			for _, i := range rows {
				want += A.At(i, s) * A.At(i, s)
			}
			if math.Abs(norms[s]-want) > tol {
				t.Errorf("q = %v: ‖M_S e_%d‖² = %v, oracle %v", q, s, norms[s], want)
			}
		}
	}
}

// TestRowNormsProbed: the estimated norms of a restricted operator model
// are within six standard deviations of the oracle's Σ_{i∈S} A_is²: the
// estimate's error is that of a mean of Probes squares of Σ_{i∈S} B_si v_i
// (B = A − P₀), whose standard deviation is at most sqrt(2/Probes)·Σ_{i∈S}
// B_si²; the constant mode is exact.
func TestRowNormsProbed(t *testing.T) {
	g := twoComponents(t)
	n := g.N()
	const tau = 0.5
	A := eigenHeat(t, g, tau)
	cnt, label := g.Components()
	size := make([]float64, cnt)
	for _, c := range label {
		size[c]++
	}
	const probes = 64
	op, err := NewGraphModel(g, tau, GraphOptions{DenseLimit: 1, Probes: probes})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0.1, 0.5} {
		rows := reportingRows(n, q, 5)
		sub, err := op.Rows(rows)
		if err != nil {
			t.Fatal(err)
		}
		est, _ := sub.rowNormsProbed()
		worst := 0.0
		for s := range n {
			want, b2 := 0.0, 0.0
			for _, i := range rows {
				a := A.At(i, s)
				want += a * a
				if label[i] == label[s] {
					a -= 1 / size[label[s]]
				}
				b2 += a * a
			}
			sd := math.Sqrt(2.0/probes) * b2
			if d := math.Abs(est[s] - want); d > 6*sd+1e-12 {
				t.Errorf("q = %v: node %d: estimate %v, oracle %v (%.1f sd)", q, s, est[s], want, d/sd)
			} else if sd > 0 {
				worst = max(worst, d/sd)
			}
		}
		t.Logf("q = %v: worst error %.2f sd", q, worst)
	}
}

// TestRowsOperatorPosterior: the posterior on the restricted operator
// model is the posterior on the dense rows model of the same sensors
// (exact norms both): the same distribution over sources, to rounding.
func TestRowsOperatorPosterior(t *testing.T) {
	g := twoComponents(t)
	n := g.N()
	const tau = 0.8
	rows := reportingRows(n, 0.3, 9)
	op, err := NewGraphModel(g, tau, GraphOptions{DenseLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	dense, err := NewGraphModel(g, tau, GraphOptions{Form: FormSpectral})
	if err != nil {
		t.Fatal(err)
	}
	subOp, err := op.Rows(rows)
	if err != nil {
		t.Fatal(err)
	}
	subDense, err := dense.Rows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if subDense.Restricted() {
		t.Fatal("the spectral model's rows model is restricted, want dense")
	}
	A := eigenHeat(t, g, tau)
	rng := rand.New(rand.NewPCG(2, 2))
	y := gauss(rng, 0.05, len(rows))
	for k, i := range rows {
		y[k] += A.At(i, 17) // a source at node 17
	}
	var post [2][]float64
	for m, md := range []*Model{subOp, subDense} {
		e, err := Posterior{}.Estimate(md.Problem(y, 0.05))
		if err != nil {
			t.Fatal(err)
		}
		post[m] = e.Posterior
	}
	for s := range n {
		if math.Abs(post[0][s]-post[1][s]) > 1e-8 {
			t.Errorf("posterior at %d: operator %v, dense %v", s, post[0][s], post[1][s])
		}
	}
}

package recovery

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// denseHeat is an independent oracle for exp(−τL): gonum's Padé matrix
// exponential, not the eigendecomposition the models use.
func denseHeat(g *laplacian.Graph, tau float64) *mat.Dense {
	L := g.Laplacian().Dense()
	n := g.N()
	A := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, -tau*L.At(i, j))
		}
	}
	var E mat.Dense
	E.Exp(A)
	return &E
}

func TestPosteriorMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 5; trial++ {
		n, e, _ := sbmEdges([]int{15, 15}, 0.3, 0.03, rng)
		g := mustGraph(t, n, e)
		tau := 0.5 + rng.Float64()
		M := denseHeat(g, tau)
		src := rng.IntN(n)
		sigma := 0.05 + 0.2*rng.Float64()
		y := gauss(rng, sigma, n)
		for i := range y {
			y[i] += M.At(i, src)
		}
		md, err := NewGraphModel(g, tau, GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		est, err := Posterior{}.Estimate(md.Problem(y, sigma))
		if err != nil {
			t.Fatal(err)
		}
		// Brute force: log p(s) = −‖ỹ − M e_s‖²/2σ², normalised.
		ll := make([]float64, n)
		for s := 0; s < n; s++ {
			d := 0.0
			for i := 0; i < n; i++ {
				r := y[i] - M.At(i, s)
				d += r * r
			}
			ll[s] = -d / (2 * sigma * sigma)
		}
		want := softmaxOracle(ll)
		sum := 0.0
		for s := 0; s < n; s++ {
			sum += est.Posterior[s]
			if math.Abs(est.Posterior[s]-want[s]) > 1e-9 {
				t.Errorf("trial %d: p(%d) = %v, brute force %v", trial, s, est.Posterior[s], want[s])
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("trial %d: posterior sums to %v", trial, sum)
		}
		if est.Locations[0] != argmax(want) || est.F[est.Locations[0]] != 1 {
			t.Errorf("trial %d: MAP %v, brute force %d", trial, est.Locations, argmax(want))
		}
	}
}

func softmaxOracle(ll []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range ll {
		mx = math.Max(mx, v)
	}
	out := make([]float64, len(ll))
	z := 0.0
	for i, v := range ll {
		out[i] = math.Exp(v - mx)
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

// TestPosteriorCalibrated draws the source from the uniform prior and
// checks that the top location is right as often as the posterior says:
// overall (Σ hit − Σ p_top is a sum of independent centred terms with
// variance Σ p(1−p); |z| < 4) and within bins of p_top (binomial
// 4-sigma bands).
func TestPosteriorCalibrated(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 3))
	n, e, _ := sbmEdges([]int{20, 20}, 0.25, 0.02, rng)
	g := mustGraph(t, n, e)
	md, err := NewGraphModel(g, 0.7, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const trials = 3000
	sigma := 0.12
	col := make([]float64, n)
	es := make([]float64, n)
	type bin struct{ n, hit, p, v float64 }
	bins := make([]bin, 5)
	var hits, pred, vari float64
	for trial := 0; trial < trials; trial++ {
		src := rng.IntN(n)
		for i := range es {
			es[i] = 0
		}
		es[src] = 1
		md.Apply(col, es)
		y := gauss(rng, sigma, n)
		for i := range y {
			y[i] += col[i]
		}
		est, err := Posterior{}.Estimate(md.Problem(y, sigma))
		if err != nil {
			t.Fatal(err)
		}
		top := est.Locations[0]
		pt := est.Posterior[top]
		h := 0.0
		if top == src {
			h = 1
		}
		hits += h
		pred += pt
		vari += pt * (1 - pt)
		b := &bins[min(4, int(pt*5))]
		b.n++
		b.hit += h
		b.p += pt
		b.v += pt * (1 - pt)
	}
	z := (hits - pred) / math.Sqrt(vari)
	t.Logf("hits %v, predicted %.1f, z = %.2f", hits, pred, z)
	if math.Abs(z) > 4 {
		t.Errorf("posterior not calibrated: %v hits vs %.1f predicted (z = %.2f)", hits, pred, z)
	}
	used := 0
	for i, b := range bins {
		if b.n < 50 {
			continue
		}
		used++
		zb := (b.hit - b.p) / math.Sqrt(b.v)
		t.Logf("bin %d: n=%v hit rate %.3f, mean p %.3f, z = %.2f", i, b.n, b.hit/b.n, b.p/b.n, zb)
		if math.Abs(zb) > 4 {
			t.Errorf("bin %d: hit rate %.3f vs mean p %.3f (z = %.2f)", i, b.hit/b.n, b.p/b.n, zb)
		}
	}
	if used < 2 {
		t.Errorf("only %d populated bins: the test does not probe calibration", used)
	}
}

func TestGreedyRecoversSeparatedSources(t *testing.T) {
	const n = 150
	g := mustGraph(t, n, pathEdges(n))
	md, err := NewGraphModel(g, 2, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srcs := []int{20, 75, 130}
	f0 := make([]float64, n)
	for _, s := range srcs {
		f0[s] = 1
	}
	y0 := make([]float64, n)
	md.Apply(y0, f0)
	rng := rand.New(rand.NewPCG(4, 4))
	// With unknown k each step adds a spurious source with probability
	// ≤ FalseAlarm; 1e-4 keeps the chance of one over these 5 trials small.
	for trial := 0; trial < 5; trial++ {
		y := gauss(rng, 0.01, n)
		for i := range y {
			y[i] += y0[i]
		}
		for _, tc := range []struct {
			est     Estimator
			sources int
		}{{Greedy{}, 3}, {Greedy{FalseAlarm: 1e-4}, 0}, {Posterior{}, 3}} {
			p := md.Problem(y, 0.01)
			p.Sources = tc.sources
			est, err := tc.est.Estimate(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(est.Locations) != 3 {
				t.Errorf("%s k=%d: found %v, want 3 sources", tc.est.Name(), tc.sources, est.Locations)
				continue
			}
			for _, s := range srcs {
				ok := false
				for _, l := range est.Locations {
					if abs(l-s) <= 1 {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s k=%d: source %d missed (found %v)", tc.est.Name(), tc.sources, s, est.Locations)
				}
			}
			emd, err := EMDGraph(g, f0, est.F)
			if err != nil || emd > 1 {
				t.Errorf("%s k=%d: EMD %v (err %v)", tc.est.Name(), tc.sources, emd, err)
			}
			sum := 0.0
			for _, q := range est.Posterior {
				sum += q
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("%s: posterior sums to %v", tc.est.Name(), sum)
			}
		}
	}
	// Pure noise: greedy with unknown k finds nothing.
	p := md.Problem(gauss(rng, 0.01, n), 0.01)
	est, err := Greedy{}.Estimate(p)
	if err != nil || est.Status != NoSource {
		t.Errorf("pure noise: %v %v, want no-source", est.Status, err)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestOperatorModelMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	n := 300
	g := mustGraph(t, n, randomEdges(n, 4*n, rng))
	tau := 1.5
	M := denseHeat(g, tau)
	om, err := NewGraphModel(g, tau, GraphOptions{DenseLimit: 1, Probes: 64})
	if err != nil {
		t.Fatal(err)
	}
	if om.Spectral() {
		t.Fatal("expected an operator model")
	}
	x := gauss(rng, 1, n)
	got := make([]float64, n)
	om.Apply(got, x)
	var want mat.VecDense
	want.MulVec(M, mat.NewVecDense(n, x))
	errNorm := 0.0
	for i := range got {
		errNorm += (got[i] - want.AtVec(i)) * (got[i] - want.AtVec(i))
	}
	errNorm = math.Sqrt(errNorm)
	if bound := om.op.ErrorBound()*math.Sqrt(float64(n)) + 1e-10; errNorm > bound {
		t.Errorf("Chebyshev action error %v exceeds bound %v", errNorm, bound)
	}
	norms, approx := om.ColumnNorms2()
	if !approx {
		t.Error("operator column norms not flagged approximate")
	}
	relSum := 0.0
	for j := 0; j < n; j++ {
		exact := 0.0
		for i := 0; i < n; i++ {
			exact += M.At(i, j) * M.At(i, j)
		}
		relSum += math.Abs(norms[j]-exact) / exact
	}
	// Each estimate has relative error ≈ sqrt(2/64) ≈ 0.18 on the
	// non-constant part; the mean absolute relative error must be below.
	if mean := relSum / float64(n); mean > 0.18 {
		t.Errorf("mean relative error of column norms %v", mean)
	}
}

func TestByName(t *testing.T) {
	for _, name := range Names() {
		e, err := ByName(name)
		if err != nil || e.Name() != name {
			t.Errorf("ByName(%q) = %v, %v", name, e, err)
		}
	}
	if e, err := ByName(""); err != nil || e.Name() != Default {
		t.Errorf("ByName(\"\") = %v, %v", e, err)
	}
	if _, err := ByName("lasso"); !errors.Is(err, ErrUnknownEstimator) {
		t.Errorf("unknown name: %v", err)
	}
}

// TestModelConcurrentUse shares one operator model between goroutines
// (run with -race): the lazy column-norm estimate happens once.
func TestModelConcurrentUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 2))
	n := 200
	g := mustGraph(t, n, randomEdges(n, 3*n, rng))
	md, err := NewGraphModel(g, 1, GraphOptions{DenseLimit: 1, Probes: 8})
	if err != nil {
		t.Fatal(err)
	}
	y := gauss(rng, 0.1, n)
	done := make(chan []float64)
	for w := 0; w < 4; w++ {
		go func() {
			est, err := Posterior{}.Estimate(md.Problem(y, 0.1))
			if err != nil {
				done <- nil
				return
			}
			done <- est.Posterior
		}()
	}
	var first []float64
	for w := 0; w < 4; w++ {
		p := <-done
		if p == nil {
			t.Fatal("estimate failed")
		}
		if first == nil {
			first = p
			continue
		}
		for i := range p {
			if p[i] != first[i] {
				t.Fatalf("goroutines disagree at %d: %v vs %v", i, p[i], first[i])
			}
		}
	}
}

// TestPosteriorRefine: on an operator model (randomised column norms,
// relative error ≈ 25% with 32 probes) and noiseless readings of a unit
// source at τ = 3, the likelihood maximiser picks among neighbouring
// sources by the norms' error; scoring the candidates with exact norms
// finds the true source (the oracle: the node the readings were made
// from) in most trials, and at least twice as often as without.
func TestPosteriorRefine(t *testing.T) {
	g, _, err := laplacian.Generate("rgg:n=600,radius=0.08,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewGraphModel(g, 3, GraphOptions{DenseLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, approx := md.ColumnNorms2(); !approx {
		t.Fatal("the model's norms are exact: nothing to refine")
	}
	plain, refined := 0, 0
	const trials = 40
	for k := range trials {
		s := (k * 97) % g.N()
		f := make([]float64, g.N())
		f[s] = 1
		y := make([]float64, g.N())
		md.Apply(y, f)
		for _, est := range []Posterior{{}, {Refine: OperatorRefine}} {
			p := md.Problem(y, 1e-9)
			p.Sources = 1
			e, err := Solve(est, p)
			if err != nil {
				t.Fatal(err)
			}
			if e.Locations[0] == s {
				if est.Refine > 0 {
					refined++
				} else {
					plain++
				}
			}
		}
	}
	t.Logf("true source found: %d/%d plain, %d/%d refined", plain, trials, refined, trials)
	if 2*refined < trials || refined < 2*plain {
		t.Errorf("refined posterior found %d of %d sources (plain %d)", refined, trials, plain)
	}
}

// TestTopKSelectIsTheStableSort: the one-pass selection TopK uses for small
// k returns what the stable sort returns — value descending, equal values
// by index — on random vectors with many ties, for k = 0 … 16.
func TestTopKSelectIsTheStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 200 {
		n := 130 + rng.IntN(200)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(1 + trial%40)) // ties, often
		}
		for k := 0; k <= 16; k++ {
			got, ok := topKSelect(x, k)
			if !ok {
				t.Fatalf("n = %d, k = %d: declined", n, k)
			}
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
			if !slices.Equal(got, idx[:k]) {
				t.Fatalf("n = %d, k = %d: %v, the stable sort %v", n, k, got, idx[:k])
			}
		}
	}
	if _, ok := topKSelect([]float64{1, math.NaN(), 3, 4, 5, 6, 7, 8, 9}, 1); ok {
		t.Fatal("a NaN was not declined")
	}
}

package recovery

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestOperatorPosteriorIsTheExactOne: on an operator model the column
// norms ‖M e_s‖² are a randomised estimate (25% relative error with 32
// probes), and on nearly noiseless readings that error, times 1/σ², is
// tens of nats: it, not the readings, picks the most likely node and
// community (what ranked the wrong community first on LFR graphs of 10⁵
// nodes). The oracle is the same posterior on the dense model of the same
// graph, whose norms are exact: the operator model's posterior must agree
// with it — the same top community and a total variation distance below
// 0.05 over the communities — for every source, with every sensor and
// with a tenth of the sensors missing.
func TestOperatorPosteriorIsTheExactOne(t *testing.T) {
	g, part, err := laplacian.SBM([]int{50, 50, 50, 50, 50, 50, 50, 50}, 0.2, 0.012, 7)
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	const tau, sigma = 1.0, 2e-3
	// The restricted model's norms estimated as on a graph of 10⁵ nodes.
	defer func(w float64) { exactRowNormsWork = w }(exactRowNormsWork)
	exactRowNormsWork = 0
	om, err := NewGraphModel(g, tau, GraphOptions{DenseLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	dm, err := NewGraphModel(g, tau, GraphOptions{Form: FormDense})
	if err != nil {
		t.Fatal(err)
	}
	if _, approx := om.ColumnNorms2(); !approx || om.op == nil {
		t.Fatal("want an operator model with estimated norms")
	}
	if _, approx := dm.ColumnNorms2(); approx || dm.op != nil {
		t.Fatal("want a dense model with exact norms")
	}
	rng := rand.New(rand.NewPCG(79, 4))
	var rows []int
	for i := range n {
		if i%10 != 3 {
			rows = append(rows, i)
		}
	}
	for _, missing := range []bool{false, true} {
		op, exact := om, dm
		if missing {
			if op, err = om.Rows(rows); err != nil {
				t.Fatal(err)
			}
			if exact, err = dm.Rows(rows); err != nil {
				t.Fatal(err)
			}
		}
		worst, wrongTop := 0.0, 0
		for k := range 12 {
			s := (k * 131) % n
			f := make([]float64, n)
			f[s] = 1
			y := make([]float64, op.M())
			op.Apply(y, f)
			for i := range y {
				y[i] += sigma * rng.NormFloat64()
			}
			got := communityShares(t, op, y, sigma, part)
			want := communityShares(t, exact, y, sigma, part)
			tv := 0.0
			for c := range want {
				tv += math.Abs(got[c]-want[c]) / 2
			}
			worst = max(worst, tv)
			if top := argmax(want); argmax(got) != top && want[top]-want[argmax(got)] > 0.1 {
				wrongTop++ // a top community clearly ahead in the exact posterior is not the estimate's top
			}
		}
		t.Logf("missing %v: worst total variation %.3g, %d of 12 top communities differ", missing, worst, wrongTop)
		if worst > 0.05 || wrongTop > 0 {
			t.Errorf("missing %v: the operator model's community posterior is not the exact one: total variation up to %.3g, %d of 12 top communities differ",
				missing, worst, wrongTop)
		}
	}
}

// communityShares is the posterior's mass on each community.
func communityShares(t *testing.T, md *Model, y []float64, sigma float64, part []int) []float64 {
	t.Helper()
	p := md.Problem(y, sigma)
	p.Sources = 1
	e, err := Solve(ForRelease(Posterior{}), p)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 8)
	for s, w := range e.Posterior {
		out[part[s]] += w
	}
	return out
}

// At the noise of a private release (σ = 1 here, against column norms
// below 1) no node's estimated norm is off by more than exactTolerance
// nats, so ForRelease's exact norms must run no block action and leave
// the posterior exactly the estimate's (on 33b7e36 a first block of 32
// exact norms ran on every release: a block action of 32 columns for
// nothing, about 2 CPU seconds on LFR 10⁵).
func TestExactNormsRunNothingUnderAPrivateReleasesNoise(t *testing.T) {
	g, _, err := laplacian.SBM([]int{50, 50, 50, 50, 50, 50, 50, 50}, 0.2, 0.012, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer func(w float64) { exactRowNormsWork = w }(exactRowNormsWork)
	exactRowNormsWork = 0
	md, err := NewGraphModel(g, 1, GraphOptions{DenseLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(79, 5))
	for _, sigma := range []float64{1, 3} {
		f := make([]float64, g.N())
		f[rng.IntN(g.N())] = 1
		y := make([]float64, md.M())
		md.Apply(y, f)
		for i := range y {
			y[i] += sigma * rng.NormFloat64()
		}
		p := md.Problem(y, sigma)
		plain, err := Solve(Posterior{}, p)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := Solve(ForRelease(Posterior{}), p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(plain.Posterior, exact.Posterior) {
			t.Errorf("σ = %g: ForRelease's posterior differs from the estimated norms' though no estimate can move it by %g nats", sigma, exactTolerance)
		}
	}
}

package sensitivity

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMatrixSensitivityHandBuilt(t *testing.T) {
	for _, c := range []struct {
		name  string
		M     *mat.Dense
		pairs []LocationPair
		alpha float64
		want  float64 // by hand
		edge  [2]int
		kappa float64
	}{
		{
			// ‖e0 − e1‖/1 = √2, ‖e1 − e2‖/2 = √2/2.
			"identity", mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}),
			[]LocationPair{{0, 1, 1}, {1, 2, 2}}, 3, 3 * math.Sqrt2, [2]int{0, 1}, 1,
		},
		{
			// columns (1,0), (2,0), (4,0): |1−2|/0.5 = 2, |2−4|/4 = 0.5, |1−4|/1 = 3.
			"rank one", mat.NewDense(2, 3, []float64{1, 2, 4, 0, 0, 0}),
			[]LocationPair{{0, 1, 0.5}, {1, 2, 4}, {2, 0, 1}}, 1, 3, [2]int{2, 0}, math.Inf(1),
		},
		{
			// diag(1, 2, 4): columns differ by √5, √20; distances 1, 2 → √5.
			"diagonal", mat.NewDense(3, 3, []float64{1, 0, 0, 0, 2, 0, 0, 0, 4}),
			[]LocationPair{{0, 1, 1}, {1, 2, 2}}, 1, math.Sqrt(5), [2]int{0, 1}, 4,
		},
	} {
		s, err := Matrix(c.M, c.pairs, c.alpha)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.want > s.Delta2 || c.want < s.Delta2-s.Slack || s.Slack > 1e-14*c.want {
			t.Errorf("%s: Δ2 = %.17g slack %g, want %.17g", c.name, s.Delta2, s.Slack, c.want)
		}
		if s.Edge != c.edge || !s.Certified || !s.Exact || s.Method != "matrix" || s.Edges != len(c.pairs) {
			t.Errorf("%s: %+v", c.name, s)
		}
		if math.IsInf(c.kappa, 1) != math.IsInf(s.Kappa2, 1) || (!math.IsInf(c.kappa, 1) && math.Abs(s.Kappa2-c.kappa) > 1e-12*c.kappa) {
			t.Errorf("%s: κ2 = %g, want %g", c.name, s.Kappa2, c.kappa)
		}
	}
}

// Property: on a random matrix with a random connected set of declared
// pairs (the metric is their shortest-path metric), moving mass along
// chains of pairs with total transport ≤ α changes Mf by at most Δ2.
func TestMatrixSensitivityNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 20; trial++ {
		m, n := 3+rng.IntN(8), 3+rng.IntN(8)
		M := mat.NewDense(m, n, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				M.Set(i, j, rng.NormFloat64())
			}
		}
		var pairs []LocationPair
		for j := 1; j < n; j++ { // random spanning tree
			pairs = append(pairs, LocationPair{rng.IntN(j), j, 0.1 + rng.Float64()})
		}
		for k := 0; k < n; k++ {
			i, j := rng.IntN(n), rng.IntN(n)
			if i != j {
				pairs = append(pairs, LocationPair{i, j, 0.1 + rng.Float64()})
			}
		}
		alpha := 0.5 + rng.Float64()
		s, err := Matrix(M, pairs, alpha)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 200; k++ {
			diff := make([]float64, n)
			budget := alpha
			// A chain of random declared pairs walked from a random start.
			v := rng.IntN(n)
			path, length := []int{v}, []float64{0}
			for step := 0; step < 1+rng.IntN(4); step++ {
				p := pairs[rng.IntN(len(pairs))]
				switch v {
				case p.I:
					v = p.J
				case p.J:
					v = p.I
				default:
					continue
				}
				path = append(path, v)
				length = append(length, length[len(length)-1]+p.Distance)
			}
			for h := 1; h < len(path) && budget > 0; h++ {
				mass := budget * rng.Float64() / length[h]
				budget -= mass * length[h]
				diff[path[0]] += mass
				diff[path[h]] -= mass
			}
			var y mat.VecDense
			y.MulVec(M, mat.NewVecDense(n, diff))
			if nrm := mat.Norm(&y, 2); nrm > s.Delta2*(1+1e-12) {
				t.Fatalf("‖M(f−f')‖ = %g > Δ2 = %g", nrm, s.Delta2)
			}
		}
	}
}

func TestMatrixSensitivityBadInput(t *testing.T) {
	M := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	ok := []LocationPair{{0, 1, 1}, {1, 2, 1}}
	var pe *PairError
	for _, c := range []struct {
		pairs  []LocationPair
		reason string
	}{
		{[]LocationPair{{0, 3, 1}, {1, 2, 1}}, "out of range"},
		{[]LocationPair{{-1, 1, 1}, {1, 2, 1}}, "out of range"},
		{[]LocationPair{{0, 1, 1}, {2, 2, 1}}, "differ"},
		{[]LocationPair{{0, 1, 0}, {1, 2, 1}}, "distance"},
		{[]LocationPair{{0, 1, -1}, {1, 2, 1}}, "distance"},
		{[]LocationPair{{0, 1, math.NaN()}, {1, 2, 1}}, "distance"},
		{[]LocationPair{{0, 1, math.Inf(1)}, {1, 2, 1}}, "distance"},
	} {
		_, err := Matrix(M, c.pairs, 1)
		if !errors.As(err, &pe) || !strings.Contains(pe.Reason, c.reason) {
			t.Errorf("%v: %v", c.pairs, err)
		}
	}
	if _, err := Matrix(M, []LocationPair{{0, 1, 1}}, 1); !errors.Is(err, ErrNotConnected) {
		t.Errorf("unreachable location: %v", err)
	}
	if _, err := Matrix(M, nil, 1); !errors.Is(err, ErrNotConnected) {
		t.Errorf("no pairs: %v", err)
	}
	var param *ParamError
	if _, err := Matrix(M, ok, 0); !errors.As(err, &param) || param.Name != "alpha" {
		t.Errorf("alpha: %v", err)
	}
	bad := mat.NewDense(2, 3, []float64{1, math.NaN(), 3, 4, 5, 6})
	if _, err := Matrix(bad, ok, 1); !errors.As(err, &param) {
		t.Errorf("NaN entry: %v", err)
	}
	if _, err := Matrix(nil, ok, 1); err == nil {
		t.Error("nil matrix accepted")
	}
}

package sensitivity

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"gonum.org/v1/gonum/mat"
)

// lineOracle computes n·max_j ‖A_j − A_{j+1}‖ by brute force from the
// kernel matrix built by expm.HeatKernel1D (independent code) and checks it
// against the formula evaluated here.
func lineOracle(t *testing.T, n, m int, T float64) (*mat.Dense, float64, int) {
	t.Helper()
	A, err := expm.HeatKernel1D(m, n, T)
	if err != nil {
		t.Fatal(err)
	}
	g := func(x float64) float64 { return math.Exp(-x*x/(4*T)) / math.Sqrt(4*math.Pi*T) }
	if v := g(1/float64(m) - 1/float64(n)); math.Abs(A.At(0, 0)-v) > 1e-13*v+1e-300 {
		t.Fatalf("oracle disagrees with the formula: %v vs %v", A.At(0, 0), v)
	}
	best, arg := 0.0, -1
	for j := 0; j+1 < n; j++ {
		s := 0.0
		for i := 0; i < m; i++ {
			d := A.At(i, j) - A.At(i, j+1)
			s += d * d
		}
		if v := float64(n) * math.Sqrt(s); v > best {
			best, arg = v, j
		}
	}
	return A, best, arg
}

func TestLineSensitivity(t *testing.T) {
	for _, c := range []struct {
		n, m     int
		T, alpha float64
	}{
		{2, 1, 0.1, 1},
		{100, 50, 0.05, 1},
		{50, 100, 0.005, 0.3},
		{200, 200, 1e-4, 2},
		{30, 7, 3, 1},
	} {
		A, want, arg := lineOracle(t, c.n, c.m, c.T)
		want *= c.alpha
		s, err := Line(c.n, c.m, c.T, c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		if want > s.Delta2 || want < s.Delta2-s.Slack-1e-12*want {
			t.Errorf("%+v: Δ2 = %.17g (slack %g), brute force %.17g", c, s.Delta2, s.Slack, want)
		}
		if s.Slack > 1e-9*want {
			t.Errorf("%+v: slack %g too wide", c, s.Slack)
		}
		if !s.Certified || !s.Exact || s.Method != "heat-kernel-1d" || s.Nodes != c.n || s.Edges != c.n-1 {
			t.Errorf("%+v: %+v", c, s)
		}
		// The maximising pair can tie by symmetry; its value must match.
		if s.Edge[0] != arg {
			var d mat.VecDense
			d.SubVec(A.ColView(s.Edge[0]), A.ColView(s.Edge[1]))
			if v := c.alpha * float64(c.n) * mat.Norm(&d, 2); math.Abs(v-want) > 1e-12*want {
				t.Errorf("%+v: pair %v gives %g, max %g", c, s.Edge, v, want)
			}
		}
		// κ2 against the oracle's SVD where it is resolved.
		var svd mat.SVD
		svd.Factorize(A, mat.SVDNone)
		v := svd.Values(nil)
		if k := v[0] / v[len(v)-1]; k < 1e8 && math.Abs(k-s.Kappa2) > 1e-6*k {
			t.Errorf("%+v: κ2 %g, oracle %g", c, s.Kappa2, k)
		}
	}
}

// Property on the line: moving mass α along the grid (one or several
// sources, any hop lengths, total transport ≤ α in the metric |x − x'|)
// changes the measurement by at most Δ2.
func TestLineSensitivityNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, m, T, alpha := 60, 40, 0.01, 0.05
	A, _, _ := lineOracle(t, n, m, T)
	s, err := Line(n, m, T, alpha)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 2000; k++ {
		diff := make([]float64, n)
		budget := alpha
		for src := 0; src < 1+rng.IntN(3); src++ {
			from := rng.IntN(n)
			hops := 1 + rng.IntN(5)
			to := from + hops
			if to >= n {
				to = from - hops
			}
			if to < 0 {
				continue
			}
			// mass·hops/n ≤ budget
			mass := budget * rng.Float64() * float64(n) / float64(hops)
			budget -= mass * float64(hops) / float64(n)
			diff[from] += mass
			diff[to] -= mass
		}
		var y mat.VecDense
		y.MulVec(A, mat.NewVecDense(n, diff))
		if v := mat.Norm(&y, 2); v > s.Delta2*(1+1e-12) {
			t.Fatalf("‖A(f−f')‖ = %g > Δ2 = %g", v, s.Delta2)
		}
	}
}

func TestLineSensitivityBadInput(t *testing.T) {
	var pe *ParamError
	for _, c := range []struct {
		name     string
		n, m     int
		T, alpha float64
	}{
		{"n", 0, 5, 1, 1},
		{"n", -3, 5, 1, 1},
		{"m", 5, 0, 1, 1},
		{"T", 5, 5, 0, 1},
		{"T", 5, 5, -1, 1},
		{"T", 5, 5, math.NaN(), 1},
		{"T", 5, 5, math.Inf(1), 1},
		{"alpha", 5, 5, 1, 0},
		{"alpha", 5, 5, 1, math.Inf(1)},
	} {
		_, err := Line(c.n, c.m, c.T, c.alpha)
		if !errors.As(err, &pe) || pe.Name != c.name {
			t.Errorf("%+v: %v", c, err)
		}
	}
	s, err := Line(1, 3, 1, 1)
	if err != nil || s.Delta2 != 0 || s.Edges != 0 {
		t.Errorf("n = 1: %+v, %v", s, err)
	}
}

package recovery

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// TestChiSquareTailIsAnUpperBound: the bound is never below the exact χ²
// tail — closed forms for k = 1 (erfc(√(t/2))) and k = 2 (e^{−t}), and
// gonum's regularized upper incomplete gamma Q(k/2, kt/2) (an independent
// implementation, Cephes) for k up to 2·10⁴ — and not loose by more than
// the Chernoff bound's polynomial factor where the tail matters.
func TestChiSquareTailIsAnUpperBound(t *testing.T) {
	for _, tc := range []struct {
		k     int
		t     float64
		exact float64
	}{
		{1, 9, math.Erfc(math.Sqrt(9.0 / 2))},
		{1, 40, math.Erfc(math.Sqrt(40.0 / 2))},
		{2, 5, math.Exp(-5)},
		{2, 20, math.Exp(-20)},
	} {
		if b := ChiSquareTail(tc.k, tc.t/float64(tc.k)); b < tc.exact {
			t.Errorf("k=%d, χ² ≥ %g: bound %g below the exact %g", tc.k, tc.t, b, tc.exact)
		}
	}
	for _, k := range []int{3, 10, 33, 34, 100, 300, 2000, 20000} {
		for _, ratio := range []float64{1.01, 1.05, 1.2, 1.5, 2, 3, 5, 8} {
			exact := mathext.GammaIncRegComp(float64(k)/2, float64(k)*ratio/2)
			b := ChiSquareTail(k, ratio)
			if b < exact*(1-1e-10) {
				t.Errorf("k=%d, t=%g: bound %g below the exact tail %g", k, ratio, b, exact)
			}
			if exact > 1e-12 && exact < 1e-6 && b > exact*10*math.Sqrt(float64(k)) {
				t.Errorf("k=%d, t=%g: bound %g loose against %g", k, ratio, b, exact)
			}
		}
	}
	if ChiSquareTail(10, 1) != 1 || ChiSquareTail(10, 0.5) != 1 {
		t.Error("t ≤ 1 must give 1")
	}
}

// TestModelNoiseBound: the widened bound meets the target at 1.5× the rms
// and is the smallest that does (to the bisection's precision), and the
// exit probability at the stated rms is far below it.
func TestModelNoiseBound(t *testing.T) {
	for _, n := range []int{34, 200, 300, 20000} {
		for _, nu := range []float64{0.005, 0.02} {
			m := ModelNoiseBound(nu, n)
			at := NoiseExitProbability(nu, NoiseMargin, m, math.Inf(1), n)
			if at > NoiseExitTarget {
				t.Errorf("n=%d ν=%g: ν_m=%g exits with %g > %g at 1.5×", n, nu, m, at, NoiseExitTarget)
			}
			if below := NoiseExitProbability(nu, NoiseMargin, m*0.999, math.Inf(1), n); below <= NoiseExitTarget {
				t.Errorf("n=%d ν=%g: ν_m=%g is not the smallest (0.999·ν_m exits with %g)", n, nu, m, below)
			}
			exact := mathext.GammaIncRegComp(float64(n)/2, float64(n)*math.Pow(m/(NoiseMargin*nu), 2)/2)
			t.Logf("n=%d ν=%g: ν_m = %.4g (%.3g ν), δ₀(1.5) = %.3g (exact χ² tail %.3g), δ₀(1) = %.3g", n, nu, m, m/nu, at, exact,
				NoiseExitProbability(nu, 1, m, math.Inf(1), n))
		}
	}
}

// TestTailBoundsNeverZero: the χ² and normal tails are positive at every
// finite point, so an upper bound must be too. Where the tail is below
// float64's range (mpmath: P(χ²_20000 ≥ 30000) = 2.2e-413, and at the
// stated rms on 2·10⁴ nodes δ₀(1) is 3.6e-2276) a bound that underflows
// to 0 prints δ = 0, claiming the noise never leaves the model.
func TestTailBoundsNeverZero(t *testing.T) {
	for _, k := range []int{34, 20000, 1000000} {
		for _, r := range []float64{1.5, 10, 1e6} {
			if b := ChiSquareTail(k, r); !(b > 0) {
				t.Errorf("ChiSquareTail(%d, %g) = %g: the χ² tail is positive", k, r, b)
			}
		}
		m := ModelNoiseBound(0.005, k)
		if d := NoiseExitProbability(0.005, 1, m, 5e9, k); !(d > 0) {
			t.Errorf("n=%d: δ₀ at the stated rms = %g: the exit probability is positive", k, d)
		}
	}
	for _, x := range []float64{40, 1e3, 1e200} {
		if b := normalTail2(x); !(b > 0) {
			t.Errorf("normalTail2(%g) = %g: the normal tail is positive", x, b)
		}
	}
}

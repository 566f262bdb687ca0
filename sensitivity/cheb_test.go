package sensitivity

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/graphcloak/graphcloak/expm"
)

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }

// besselOracle returns e^{−a}I_k(a) for k = 0..kmax from the power series
// I_k(a) = Σ_m (a/2)^{2m+k}/(m!(m+k)!) and e^{a} = Σ a^m/m!, in 400-bit
// arithmetic (all terms positive: no cancellation).
func besselOracle(a float64, kmax int) []float64 {
	const prec = 400
	A := new(big.Float).SetPrec(prec).SetFloat64(a)
	half := new(big.Float).SetPrec(prec).Quo(A, big.NewFloat(2))
	terms := int(3*a) + 200
	// e^a
	ea := new(big.Float).SetPrec(prec).SetFloat64(1)
	term := new(big.Float).SetPrec(prec).SetFloat64(1)
	for m := 1; m < terms; m++ {
		term.Mul(term, A)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(m)))
		ea.Add(ea, term)
	}
	out := make([]float64, kmax+1)
	for k := 0; k <= kmax; k++ {
		// first term (a/2)^k / k!
		t := new(big.Float).SetPrec(prec).SetFloat64(1)
		for j := 1; j <= k; j++ {
			t.Mul(t, half)
			t.Quo(t, new(big.Float).SetPrec(prec).SetInt64(int64(j)))
		}
		sum := new(big.Float).SetPrec(prec).Set(t)
		h2 := new(big.Float).SetPrec(prec).Mul(half, half)
		for m := 1; m < terms; m++ {
			t.Mul(t, h2)
			t.Quo(t, new(big.Float).SetPrec(prec).SetInt64(int64(m)*int64(m+k)))
			sum.Add(sum, t)
		}
		sum.Quo(sum, ea)
		out[k], _ = sum.Float64()
	}
	return out
}

// The Miller-recurrence coefficients match the series oracle within the
// allowance the sparse path adds for them ((k₀+10)·8u summed over k), and
// the tail bound chebDegree uses (expm.ChebyshevTail) is ≥ the exact tail
// 2Σ_{k>K} e^{−a}I_k(a) of the series oracle, and K minimal for it.
func TestChebyshevCoefficients(t *testing.T) {
	for _, a := range []float64{0.3, 2, 10, 37.5, 75, 150} {
		K := chebDegree(a, 1e-12)
		kmax := K + 60
		want := besselOracle(a, kmax)
		got := expm.BesselIe(a, K)
		errSum := 0.0
		for k := 0; k <= K; k++ {
			errSum += math.Abs(got[k] - want[k])
		}
		k0 := K + 30 + int(10*math.Sqrt(a))
		if allow := float64(k0+10) * 8 * roundoffU; errSum > allow {
			t.Errorf("a=%v: Σ|ĉ−c| = %g > allowance %g", a, errSum, allow)
		}
		tail := 0.0
		for k := K + 1; k <= kmax; k++ {
			tail += 2 * want[k]
		}
		if b := expm.ChebyshevTail(a, K); b < tail || b > 1e-12 {
			t.Errorf("a=%v K=%d: bound %g vs exact tail %g (tol 1e-12)", a, K, b, tail)
		}
		if K > 1 && expm.ChebyshevTail(a, K-1) <= 1e-12 {
			t.Errorf("a=%v: degree %d not minimal", a, K)
		}
	}
}

// B ≥ λ_max(L) on random weighted graphs (dense eigenvalues as oracle).
func TestLambdaMaxBound(t *testing.T) {
	rng := newTestRand(21)
	for trial := 0; trial < 20; trial++ {
		g := randomGraph(t, rng, 10+rng.IntN(50), 0.05+0.3*rng.Float64(), 1+trial%2, trial%3 != 0)
		var es mat.EigenSym
		if !es.Factorize(g.Laplacian().Dense(), false) {
			t.Fatal("eigen failed")
		}
		v := es.Values(nil)
		if B := expm.LambdaMaxBound(g); B < v[len(v)-1] {
			t.Errorf("B = %v < λ_max = %v", B, v[len(v)-1])
		}
	}
}

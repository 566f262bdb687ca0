package expm

import (
	"math"
	"math/big"
	"testing"
)

// seriesIe computes e^{−a}·I_k(a) from the power series
// Σ_m (a/2)^{2m+k}/(m!(m+k)!) in 256-bit arithmetic, multiplied by
// math.Exp(−a) (≤ 1 ulp): an oracle independent of Miller's recurrence.
func seriesIe(a float64, k int) float64 {
	const prec = 256
	h := new(big.Float).SetPrec(prec).SetFloat64(a / 2)
	q := new(big.Float).SetPrec(prec).Mul(h, h)
	term := new(big.Float).SetPrec(prec).SetFloat64(1)
	for i := 1; i <= k; i++ { // (a/2)^k / k!
		term.Mul(term, h)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(i)))
	}
	sum := new(big.Float).SetPrec(prec).Set(term)
	eps := new(big.Float).SetPrec(prec).SetFloat64(1e-40)
	for m := 1; ; m++ {
		term.Mul(term, q)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(m)*int64(m+k)))
		sum.Add(sum, term)
		if m > int(a)+10 {
			lim := new(big.Float).SetPrec(prec).Mul(sum, eps)
			if term.Cmp(lim) < 0 {
				break
			}
		}
	}
	// Scale by e^{−a} in two halves so that e^{a}-sized sums stay finite.
	half := new(big.Float).SetPrec(prec).SetFloat64(math.Exp(-a / 2))
	sum.Mul(sum, half)
	sum.Mul(sum, half)
	f, _ := sum.Float64()
	return f
}

func TestBesselIeSeries(t *testing.T) {
	for _, a := range []float64{1e-9, 0.01, 0.3, 0.999, 1, 1.5, 2.5, 10, 37.5, 100, 300, 700} {
		ks := []int{0, 1, 2, 3, 5, 10, 20, 40, 80, 120}
		K := ks[len(ks)-1]
		got := BesselIe(a, K)
		for _, k := range ks {
			want := seriesIe(a, k)
			if want < 1e-290 {
				if got[k] > 1e-280 {
					t.Errorf("a=%g k=%d: got %g, want ≈ %g", a, k, got[k], want)
				}
				continue
			}
			// 4e−15 ≈ 36u: the heuristic coefficient error θ = 4(k₀+2)u ≥ 264u
			// assumed by Chebyshev's error bound is well above (measured ≤ 10u).
			if rel := math.Abs(got[k]-want) / want; rel > 4e-15 {
				t.Errorf("a=%g k=%d: got %.17g, want %.17g (rel %.2g)", a, k, got[k], want, rel)
			}
		}
	}
}

// TestBesselIeAsymptotic checks large a against the Hankel expansion
// e^{−a}I_k(a) ~ (2πa)^{−1/2}·Σ_j (−1)^j Π_{i≤j}(4k² − (2i−1)²)/(j!(8a)^j)
// (Abramowitz & Stegun 9.7.1), whose error is below the first omitted term.
func TestBesselIeAsymptotic(t *testing.T) {
	for _, a := range []float64{2e3, 1e4, 1e5} {
		got := BesselIe(a, 6)
		for k := 0; k <= 6; k++ {
			mu := 4 * float64(k*k)
			s, term := 1.0, 1.0
			for j := 1; j <= 8; j++ {
				term *= -(mu - float64((2*j-1)*(2*j-1))) / (float64(j) * 8 * a)
				s += term
			}
			want := s / math.Sqrt(2*math.Pi*a)
			if rel := math.Abs(got[k]-want) / want; rel > 1e-12 {
				t.Errorf("a=%g k=%d: got %.17g, asymptotic %.17g (rel %.2g)", a, k, got[k], want, rel)
			}
		}
	}
}

func TestBesselIeProperties(t *testing.T) {
	for _, a := range []float64{0, 1e-3, 0.5, 1, 3, 20, 150, 1000} {
		ie := BesselIe(a, 600)
		// Σ over all k ∈ ℤ of e^{−a}I_|k|(a) = 1 and Σ k²·e^{−a}I_|k|(a) = a
		// (generating function at θ = 0 and its second derivative).
		s0, s2 := ie[0], 0.0
		for k := 1; k < len(ie); k++ {
			s0 += 2 * ie[k]
			s2 += 2 * float64(k*k) * ie[k]
			if ie[k] > ie[k-1] || ie[k] < 0 {
				t.Errorf("a=%g: not non-negative decreasing at k=%d", a, k)
			}
		}
		if math.Abs(s0-1) > 1e-13 {
			t.Errorf("a=%g: Σ = %v, want 1", a, s0)
		}
		if math.Abs(s2-a) > 1e-12*math.Max(1, a) {
			t.Errorf("a=%g: Σk² = %v, want %v", a, s2, a)
		}
	}
	if got := BesselIe(0, 3); got[0] != 1 || got[1] != 0 || got[3] != 0 {
		t.Errorf("a=0: %v", got)
	}
}

func TestBesselIePanics(t *testing.T) {
	for _, c := range []struct {
		a float64
		K int
	}{{-1, 3}, {math.NaN(), 3}, {math.Inf(1), 3}, {1, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("BesselIe(%v, %d) did not panic", c.a, c.K)
				}
			}()
			BesselIe(c.a, c.K)
		}()
	}
}

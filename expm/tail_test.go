package expm

import (
	"math"
	"testing"
)

// exactTail returns 2Σ_{k>K} e^{−a}I_k(a) from BesselIe.
func exactTail(a float64, K int) float64 {
	ie := BesselIe(a, K+400+int(20*math.Sqrt(a)))
	s := 0.0
	for k := len(ie) - 1; k > K; k-- {
		s += 2 * ie[k]
	}
	return s
}

func TestChebyshevTailBoundHolds(t *testing.T) {
	for _, a := range []float64{1e-6, 0.1, 0.5, 1, 2, 5, 10, 30, 50, 100, 250, 1000, 5000} {
		prev := math.Inf(1)
		for K := 0; K < 700; K += 1 + K/8 {
			b := ChebyshevTailBound(a, K)
			ex := exactTail(a, K)
			if b < ex {
				t.Errorf("a=%g K=%d: bound %g < exact tail %g", a, K, b, ex)
			}
			if b > prev {
				t.Errorf("a=%g K=%d: bound %g increased from %g", a, K, b, prev)
			}
			if b > 1+1e-9 {
				t.Errorf("a=%g K=%d: bound %g > 1", a, K, b)
			}
			prev = b
		}
	}
	if ChebyshevTailBound(0, 0) != 0 {
		t.Error("a=0 must give 0")
	}
}

// TestChebyshevTailDegrees compares the degree needed for 1e−12 with the
// values tabulated in docs/derivations.md §1.1 (computed there with scipy's ive):
// the exact-tail degree must match (a check of BesselIe), the bound's
// degree must be at least it and at most ~15% more.
func TestChebyshevTailDegrees(t *testing.T) {
	tests := []struct {
		a            float64
		exact, bound int
	}{
		{1, 11, 12}, {10, 26, 27}, {50, 52, 55}, {100, 73, 77}, {250, 114, 122}, {1000, 226, 244}, {5000, 504, 553},
	}
	for _, tt := range tests {
		kb, ke := 0, 0
		for ChebyshevTailBound(tt.a, kb) > 1e-12 {
			kb++
		}
		ie := BesselIe(tt.a, 2000)
		s := 0.0
		tail := make([]float64, len(ie))
		for k := len(ie) - 1; k >= 0; k-- {
			tail[k] = s
			s += 2 * ie[k]
		}
		for tail[ke] > 1e-12 {
			ke++
		}
		if ke != tt.exact {
			t.Errorf("a=%g: exact-tail degree %d, notes %d", tt.a, ke, tt.exact)
		}
		if kb < ke || float64(kb) > 1.15*float64(ke)+2 {
			t.Errorf("a=%g: bound degree %d vs exact %d", tt.a, kb, ke)
		}
		if d := kb - tt.bound; d < -1 || d > 1 {
			t.Errorf("a=%g: bound degree %d, notes %d", tt.a, kb, tt.bound)
		}
	}
}

// TestChebyshevDegreeGrowth checks K ≈ √(2a·ln(1/tol)) for large a.
func TestChebyshevDegreeGrowth(t *testing.T) {
	for _, a := range []float64{100, 1000, 10000} {
		for _, tol := range []float64{1e-6, 1e-10, 1e-14} {
			K := 0
			for ChebyshevTailBound(a, K) > tol {
				K++
			}
			pred := math.Sqrt(2 * a * math.Log(1/tol))
			if r := float64(K) / pred; r < 0.8 || r > 1.3 {
				t.Errorf("a=%g tol=%g: K=%d, √(2a ln 1/tol)=%.1f, ratio %.2f", a, tol, K, pred, r)
			}
		}
	}
}

// TestChebyshevTailsHold: the tails summed from BesselIe's coefficients
// (chebyshevTails) bound the true tail 2Σ_{k>K} e^{−a}I_k(a), summed from
// the 256-bit power series (seriesIe, independent of Miller's recurrence),
// at every K up to k2, and exceed it by no more than their widening and
// the ellipse bound beyond k2; for large a they give a lower degree than
// the ellipse bound (a ≈ 152 at 5·10⁻⁷: 70 → 62).
func TestChebyshevTailsHold(t *testing.T) {
	for _, a := range []float64{0.5, 3, 10, 50, 152, 300} {
		k2 := 0
		for ChebyshevTailBound(a, k2) > 1e-15 {
			k2++
		}
		k2 += 4
		tails := chebyshevTails(a, BesselIe(a, k2))
		truth := make([]float64, k2+1) // 2Σ_{k>K}, the series to k2 + 60
		s := 0.0
		for k := k2 + 60; k >= 0; k-- {
			if k <= k2 {
				truth[k] = s
			}
			s += 2 * seriesIe(a, k)
		}
		rest := ChebyshevTailBound(a, k2)
		for K, got := range tails {
			if got < truth[K] || got > truth[K]*(1+2*coefTailSlack)+rest || got > ChebyshevTailBound(a, K) {
				t.Errorf("a=%g K=%d: tail %.6g, true %.6g, ellipse %.6g (beyond k2 %.2g)", a, K, got, truth[K], ChebyshevTailBound(a, K), rest)
			}
			// ChebyshevTail (one K, its own k₂): the true tail and at most a
			// ten-thousandth more.
			if one := ChebyshevTail(a, K); one < truth[K] || one > truth[K]*(1+1e-4) && one != ChebyshevTailBound(a, K) {
				t.Errorf("a=%g K=%d: ChebyshevTail %.6g, true %.6g", a, K, one, truth[K])
			}
		}
	}
	degree := func(tail func(K int) float64) int {
		K := 0
		for tail(K) > 5e-7 {
			K++
		}
		return K
	}
	tails := chebyshevTails(152, BesselIe(152, 120))
	if ours, ellipse := degree(func(K int) float64 { return tails[K] }), degree(func(K int) float64 { return ChebyshevTailBound(152, K) }); ours >= ellipse || float64(ours) > 0.92*float64(ellipse) {
		t.Errorf("a = 152, tolerance 5e-7: degree %d from the coefficients' tail, %d from the ellipse bound", ours, ellipse)
	}
}

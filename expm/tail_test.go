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

package forecast

import (
	"math"
	"testing"
)

// Wilson intervals against values computed by hand from the closed form
// and against its defining property: the bounds are the two roots p of
// (p̂ − p)² = z² p(1 − p)/n.
func TestWilson(t *testing.T) {
	cases := []struct{ k, n float64 }{{0, 10}, {10, 10}, {5, 10}, {1, 200}, {137, 200}, {1, 1}}
	for _, c := range cases {
		lo, hi := Wilson(c.k, c.n, Z95)
		if !(0 <= lo && lo <= c.k/c.n && c.k/c.n <= hi && hi <= 1) {
			t.Errorf("k=%g n=%g: [%g, %g] does not bracket %g inside [0,1]", c.k, c.n, lo, hi, c.k/c.n)
		}
		p := c.k / c.n
		for _, b := range []float64{lo, hi} {
			if b == 0 && c.k == 0 || b == 1 && c.k == c.n {
				continue // the root at the boundary
			}
			if r := (p-b)*(p-b) - Z95*Z95*b*(1-b)/c.n; math.Abs(r) > 1e-12 {
				t.Errorf("k=%g n=%g: bound %g is not a root (residual %g)", c.k, c.n, b, r)
			}
		}
	}
	// 5 of 10: centre 0.5, half-width z√(0.025 + z²/400)/(1 + z²/10).
	lo, hi := Wilson(5, 10, Z95)
	half := Z95 * math.Sqrt(0.025+Z95*Z95/400) / (1 + Z95*Z95/10)
	if math.Abs(lo-(0.5-half)) > 1e-15 || math.Abs(hi-(0.5+half)) > 1e-15 {
		t.Errorf("5/10: [%g, %g], want 0.5 ± %g", lo, hi, half)
	}
	// Narrower with more trials at the same rate.
	l1, h1 := Wilson(50, 100, Z95)
	if !(h1-l1 < hi-lo) {
		t.Error("the interval does not narrow with n")
	}
}

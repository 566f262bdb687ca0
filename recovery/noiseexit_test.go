package recovery

import (
	"math"
	"testing"
)

// TestNoiseExitCurve (issue 77, item 4): the exit probabilities plan
// prints are the exact Gaussian tails — checked against closed forms
// (χ²₁ = Z²: P = erfc(r/√2); χ²₂: P = e^{−r²}) — lie below the proven
// bound NoiseExitProbability, and grow with the multiple of the rms.
func TestNoiseExitCurve(t *testing.T) {
	const nu, model = 0.01, 0.04
	for _, c := range []struct {
		n     int
		exact func(r float64) float64
	}{
		{1, func(r float64) float64 { return math.Erfc(r / math.Sqrt2) }},
		{2, func(r float64) float64 { return math.Exp(-2 * r * r / 2) }},
	} {
		prev := 0.0
		for _, e := range NoiseExitCurve(nu, model, 0, c.n) {
			r := model / (e.Times * nu)
			if want := c.exact(r); math.Abs(e.Probability-want) > 1e-9*want+1e-15 {
				t.Errorf("n=%d at %g×: %g, want %g", c.n, e.Times, e.Probability, want)
			}
			if bound := NoiseExitProbability(nu, e.Times, model, 0, c.n); e.Probability > bound {
				t.Errorf("n=%d at %g×: %g above the proven bound %g", c.n, e.Times, e.Probability, bound)
			}
			if e.Probability < prev {
				t.Errorf("n=%d: not increasing at %g×", c.n, e.Times)
			}
			prev = e.Probability
		}
	}
	if NoiseExitCurve(0, model, 0, 34) != nil {
		t.Error("no noise stated: no curve")
	}
}

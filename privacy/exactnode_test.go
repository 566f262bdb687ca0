package privacy

import (
	"math"
	"testing"
)

// numericDelta is δ(ε) of the continuous Gaussian mechanism with
// sensitivity-to-σ ratio μ by brute-force numerical integration of its
// definition, independently of Balle–Wang's closed form: a shift of μσ
// along any direction reduces to one dimension, and
//
//	δ(ε) = ∫ max(0, φ(x) − e^ε·φ(x − μ)) dx,
//
// integrated by Simpson's rule on [−12, μ + 12] (φ beyond is < 1e-32).
func numericDelta(mu, eps float64) float64 {
	lo, hi := -12.0, mu+12
	const n = 200000 // even
	h := (hi - lo) / n
	f := func(x float64) float64 {
		p := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		q := math.Exp(eps-(x-mu)*(x-mu)/2) / math.Sqrt(2*math.Pi)
		return math.Max(0, p-q)
	}
	sum := f(lo) + f(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(lo+float64(i)*h)
	}
	return sum * h / 3
}

// TestExactNodeAgainstNumericalIntegration: the exact node's Gaussian ε at
// mass m is where the Gaussian mechanism of sensitivity (m/α)·Δ2 and this
// σ — μ computed here from the raw numbers — reaches δ, by numerical
// integration of the loss (the oracle): δ(ε_m) ≤ δ, and δ(0.99·ε_m) > δ.
// The discrete Gaussian's (CKS20) ε_m lies between that exact value and
// the Bun–Steinke bound ρ + 2√(ρ·ln(1/δ)) of the same ρ_m.
func TestExactNodeAgainstNumericalIntegration(t *testing.T) {
	for _, c := range []struct {
		name                        string
		sigma, delta2, alpha, delta float64
		widening                    float64
		masses                      []float64
	}{
		{"karate ε=4 (σ of the release)", 0.412784, 0.356418, 1, 1e-5, 0.356418 * 1e-3, []float64{0.1, 1, 2.19, 3.16, 10, 30}},
		{"α = 2.5, δ = 1e-7", 1.7, 0.9, 2.5, 1e-7, 0, []float64{0.5, 2.5, 7, 20}},
		{"small σ", 0.05, 0.3, 1, 1e-6, 0.0002, []float64{0.2, 1, 4}},
	} {
		n := NodeNoise{Sigma: c.sigma, Sensitivity: c.delta2, Alpha: c.alpha, Delta: c.delta, Widening: c.widening}
		for _, m := range c.masses {
			e, err := n.ExactNode(m)
			if err != nil {
				t.Fatalf("%s, m = %g: %v", c.name, m, err)
			}
			mu := m * c.delta2 / (c.alpha * c.sigma)
			if d := numericDelta(mu, e.GaussianEpsilon); d > c.delta*(1+1e-6) {
				t.Errorf("%s, m = %g: numerical δ at the Gaussian ε %g is %g > δ = %g", c.name, m, e.GaussianEpsilon, d, c.delta)
			}
			if e.GaussianEpsilon > 0.05 {
				if d := numericDelta(mu, 0.99*e.GaussianEpsilon); d <= c.delta {
					t.Errorf("%s, m = %g: numerical δ at 0.99× the Gaussian ε %g is %g ≤ δ: ε is not tight", c.name, m, e.GaussianEpsilon, d)
				}
			}
			rho := math.Pow(m/c.alpha*c.delta2+c.widening, 2) / (2 * c.sigma * c.sigma)
			bs := rho + 2*math.Sqrt(rho*math.Log(1/c.delta))
			if e.Epsilon < e.GaussianEpsilon*(1-1e-9) || e.Epsilon > bs*(1+1e-9) {
				t.Errorf("%s, m = %g: CKS ε %g outside [exact %g, Bun–Steinke %g]", c.name, m, e.Epsilon, e.GaussianEpsilon, bs)
			}
			if d := CKSDelta(rho, e.Epsilon); d > c.delta*(1+1e-9) {
				t.Errorf("%s, m = %g: CKSDelta(ρ_m, ε_m) = %g > δ", c.name, m, d)
			}
			if e.ProtectedUnits != m/c.alpha || e.Alpha != c.alpha || e.Private != (e.Epsilon <= ExactNodeLimit) {
				t.Errorf("%s, m = %g: units %g, α %g, private %v at ε %g", c.name, m, e.ProtectedUnits, e.Alpha, e.Private, e.Epsilon)
			}
		}
	}
}

// TestExactNodeAtOneUnitIsTheRelease: at m = α the exact node's ε is the
// release's own: the calibration (CalibrateRelease, grid widening
// included) charged ρ for exactly that sensitivity, so ε_α equals ε to
// the conversion's precision (and never exceeds it).
func TestExactNodeAtOneUnitIsTheRelease(t *testing.T) {
	for _, c := range []struct {
		delta2, eps, delta, alpha float64
		n                         int
	}{{0.356418, 4, 1e-5, 1, 34}, {0.356418, 1, 1e-7, 1, 34}, {2.1, 0.5, 1e-6, 3, 4941}, {0.05, 8, 1e-5, 0.25, 1000}} {
		cal, err := CalibrateRelease(c.delta2, c.eps, c.delta, c.n, MechanismDiscrete)
		if err != nil {
			t.Fatal(err)
		}
		n := NodeNoise{Sigma: cal.Sigma, Sensitivity: c.delta2, Alpha: c.alpha, Delta: c.delta, Widening: cal.EffectiveSensitivity - c.delta2}
		e, err := n.ExactNode(c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		if e.Epsilon > c.eps*(1+1e-9) || e.Epsilon < c.eps*(1-1e-6) {
			t.Errorf("Δ2 %g ε %g δ %g α %g: ε at one unit %g, want the release's %g", c.delta2, c.eps, c.delta, c.alpha, e.Epsilon, c.eps)
		}
	}
}

// TestExactNodeThreshold: the exact node is private up to NotPrivateAbove
// and not above it (ε_m crosses ExactNodeLimit there), the mass grows with
// σ and α as the sensitivity says, and ε_m grows with the mass.
func TestExactNodeThreshold(t *testing.T) {
	for _, n := range []NodeNoise{
		{Sigma: 0.412784, Sensitivity: 0.356418, Alpha: 1, Delta: 1e-5, Widening: 3.6e-4},
		{Sigma: 3, Sensitivity: 0.5, Alpha: 2, Delta: 1e-6},
		{Sigma: 1, Sensitivity: 1, Alpha: 1, Delta: 1e-5, Widening: 0.5}, // a coarse grid: the threshold moves by it
		{Sigma: 3, Sensitivity: 0.5, Alpha: 2, Delta: 1e-6, Continuous: true},
	} {
		e, err := n.ExactNode(1)
		if err != nil {
			t.Fatal(err)
		}
		above := e.NotPrivateAbove
		if !(above > 0) {
			t.Fatalf("%+v: NotPrivateAbove = %g", n, above)
		}
		for _, c := range []struct {
			f       float64
			private bool
		}{{0.5, true}, {0.99, true}, {1.01, false}, {3, false}} {
			e, err := n.ExactNode(c.f * above)
			if err != nil {
				t.Fatal(err)
			}
			if e.Private != c.private || (e.Epsilon <= ExactNodeLimit) != c.private {
				t.Errorf("%+v at %g× the threshold mass %g: ε %g, private %v, want %v", n, c.f, above, e.Epsilon, e.Private, c.private)
			}
		}
		prev := -1.0
		for _, m := range []float64{0, 0.1, 0.316, 1, 3.16, 10, 31.6, 100, 1000} {
			e, err := n.ExactNode(m)
			if err != nil {
				t.Fatal(err)
			}
			if !(e.Epsilon > prev) {
				t.Errorf("%+v: ε %g at %g units is not above %g", n, e.Epsilon, m, prev)
			}
			prev = e.Epsilon
		}
		// Twice the noise, or α twice as large: twice the mass (the
		// sensitivity is (m/α)·Δ2/σ; exact without the grid's widening).
		if n.Widening == 0 {
			for _, m := range []NodeNoise{{Sigma: 2 * n.Sigma, Sensitivity: n.Sensitivity, Alpha: n.Alpha, Delta: n.Delta, Continuous: n.Continuous},
				{Sigma: n.Sigma, Sensitivity: n.Sensitivity, Alpha: 2 * n.Alpha, Delta: n.Delta, Continuous: n.Continuous}} {
				e2, err := m.ExactNode(1)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(e2.NotPrivateAbove-2*above) > 1e-9*above {
					t.Errorf("%+v: threshold %g, want 2 × %g", m, e2.NotPrivateAbove, above)
				}
			}
		}
	}
}

// TestExactNodeRefusesBadInput: a mass, σ, Δ2, α or δ out of range is an
// *ArgumentError naming it.
func TestExactNodeRefusesBadInput(t *testing.T) {
	good := NodeNoise{Sigma: 1, Sensitivity: 1, Alpha: 1, Delta: 1e-5}
	for _, c := range []struct {
		n     NodeNoise
		mass  float64
		param string
	}{
		{good, -1, "mass"}, {good, math.NaN(), "mass"}, {good, math.Inf(1), "mass"},
		{NodeNoise{Sensitivity: 1, Alpha: 1, Delta: 1e-5}, 1, "sigma"},
		{NodeNoise{Sigma: 1, Alpha: 1, Delta: 1e-5}, 1, "sensitivity"},
		{NodeNoise{Sigma: 1, Sensitivity: 1, Delta: 1e-5}, 1, "alpha"},
		{NodeNoise{Sigma: 1, Sensitivity: 1, Alpha: 1}, 1, "delta"},
		{NodeNoise{Sigma: 1, Sensitivity: 1, Alpha: 1, Delta: 1e-5, Widening: -1}, 1, "widening"},
	} {
		_, err := c.n.ExactNode(c.mass)
		var ae *ArgumentError
		if !asArgumentError(err, &ae) || ae.Param != c.param {
			t.Errorf("%+v at %g: %v, want an ArgumentError naming %s", c.n, c.mass, err, c.param)
		}
	}
}

func asArgumentError(err error, target **ArgumentError) bool {
	ae, ok := err.(*ArgumentError)
	if ok {
		*target = ae
	}
	return ok
}

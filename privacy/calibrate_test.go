package privacy

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Reference σ for Δ = 1 from docs/derivations.md §4, computed
// there in Python and cross-checked by numerical integration of the
// hockey-stick divergence.
var analyticVectors = []struct{ eps, delta, sigma float64 }{
	{1, 1e-5, 3.730632},
	{0.5, 1e-5, 7.031827},
	{4, 1e-6, 1.193519},
	{0.1, 1e-5, 30.749566},
	{1, 1e-6, 4.224679},
	{2, 1e-5, 1.993812},
	{8, 1e-6, 0.652935},
	{4, 0.1, 0.485540},
}

func TestAnalyticSigmaVectors(t *testing.T) {
	for _, v := range analyticVectors {
		for _, sens := range []float64{1, 0.003, 250} {
			s, err := AnalyticSigma(sens, v.eps, v.delta)
			if err != nil {
				t.Fatalf("AnalyticSigma(%g, %g, %g): %v", sens, v.eps, v.delta, err)
			}
			if got := s / sens; math.Abs(got-v.sigma) > 1e-6*v.sigma+1e-6 {
				t.Errorf("ε=%g δ=%g Δ=%g: σ/Δ = %.7f, want %.6f", v.eps, v.delta, sens, got, v.sigma)
			}
		}
	}
}

// The returned σ satisfies Thm 8 and σ·(1 − 1e-3) does not, on a grid.
func TestAnalyticSigmaRoundTrip(t *testing.T) {
	for _, eps := range []float64{0.01, 0.05, 0.1, 0.3, 0.7, 1, 1.5, 3, 5, 10, 30, 100, 700, 1000} {
		for _, delta := range []float64{1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.01, 0.1, 0.5, 0.9} {
			for _, sens := range []float64{1, 0.01} {
				s, err := AnalyticSigma(sens, eps, delta)
				if err != nil {
					t.Fatalf("ε=%g δ=%g: %v", eps, delta, err)
				}
				if d := GaussianDelta(sens/s, eps); !(d <= delta) {
					t.Errorf("ε=%g δ=%g: δ(σ) = %g > δ", eps, delta, d)
				}
				if d := GaussianDelta(sens/(s*(1-1e-3)), eps); !(d > delta) {
					t.Errorf("ε=%g δ=%g: σ not minimal: δ(0.999σ) = %g ≤ δ", eps, delta, d)
				}
			}
		}
	}
}

func TestCalibrateHugeEpsilon(t *testing.T) {
	for _, eps := range []float64{1e3, 1e4, 1e6, 1e9} {
		c, err := Calibrate(CalibrationParams{Sensitivity: 1, Epsilon: eps, Delta: 1e-5, Mechanism: MechanismAnalytic})
		if err != nil {
			t.Fatalf("ε=%g: %v", eps, err)
		}
		if !(c.Sigma > 0) || math.IsInf(c.Sigma, 0) || math.IsNaN(c.Rho) || math.IsInf(c.Rho, 0) {
			t.Fatalf("ε=%g: σ=%v ρ=%v", eps, c.Sigma, c.Rho)
		}
		// Large-ε asymptotics of Thm 8: the condition is dominated by
		// Φ(μ/2 − ε/μ) ≈ δ, so μ/2 − ε/μ → Φ⁻¹(δ) ≈ −4.26 and μ ≈ √(2ε).
		mu := 1 / c.Sigma
		if r := mu / math.Sqrt(2*eps); r < 0.9 || r > 1.2 {
			t.Errorf("ε=%g: μ/√(2ε) = %g, want ≈ 1", eps, r)
		}
		if d := GaussianDelta(mu, eps); !(d <= 1e-5) {
			t.Errorf("ε=%g: δ(σ) = %g", eps, d)
		}
		if d := GaussianDelta(mu*1.001, eps); !(d > 1e-5) {
			t.Errorf("ε=%g: σ not minimal (δ(0.999σ) = %g)", eps, d)
		}
	}
}

func TestClassicSigma(t *testing.T) {
	s, err := ClassicSigma(1, 0.5, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if want := 9.689611; math.Abs(s-want) > 1e-6 { // notes §2 table
		t.Errorf("classic σ = %.7f, want %.6f", s, want)
	}
	if want := math.Sqrt(2*math.Log(1.25/1e-5)) / 0.5; s < want {
		t.Errorf("classic σ %v rounded below the formula %v", s, want)
	}
	for _, eps := range []float64{1, 1.5, 4} {
		_, err := Calibrate(CalibrationParams{Sensitivity: 1, Epsilon: eps, Delta: 1e-5, Mechanism: MechanismClassic})
		var ae *ArgumentError
		if !errors.As(err, &ae) || ae.Param != "epsilon" {
			t.Fatalf("classic at ε=%g: err = %v, want *ArgumentError on epsilon", eps, err)
		}
		if !strings.Contains(err.Error(), "analytic") {
			t.Errorf("classic refusal does not name the analytic mechanism: %v", err)
		}
	}
}

func TestCalibrateValidation(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name             string
		sens, eps, delta float64
		param            string
	}{
		{"eps zero", 1, 0, 1e-5, "epsilon"},
		{"eps negative", 1, -1, 1e-5, "epsilon"},
		{"eps NaN", 1, nan, 1e-5, "epsilon"},
		{"eps Inf", 1, inf, 1e-5, "epsilon"},
		{"delta zero", 1, 1, 0, "delta"},
		{"delta one", 1, 1, 1, "delta"},
		{"delta above one", 1, 1, 1.5, "delta"},
		{"delta negative", 1, 1, -1e-5, "delta"},
		{"delta NaN", 1, 1, nan, "delta"},
		{"sens zero", 0, 1, 1e-5, "sensitivity"},
		{"sens negative", -1, 1, 1e-5, "sensitivity"},
		{"sens NaN", nan, 1, 1e-5, "sensitivity"},
		{"sens Inf", inf, 1, 1e-5, "sensitivity"},
	}
	for _, c := range cases {
		for _, m := range []Mechanism{MechanismDefault, MechanismAnalytic, MechanismClassic, MechanismDiscrete} {
			t.Run(fmt.Sprintf("%s/%v", c.name, m), func(t *testing.T) {
				eps := c.eps
				if m == MechanismClassic && c.param != "epsilon" {
					eps = 0.5
				}
				_, err := Calibrate(CalibrationParams{Sensitivity: c.sens, Epsilon: eps, Delta: c.delta, Mechanism: m})
				var ae *ArgumentError
				if !errors.As(err, &ae) || ae.Param != c.param {
					t.Fatalf("err = %v, want *ArgumentError on %s", err, c.param)
				}
				if !strings.HasPrefix(err.Error(), "privacy: ") {
					t.Errorf("error %q not package-prefixed", err)
				}
			})
		}
	}
}

func TestCalibrateRhoAndMechanisms(t *testing.T) {
	c, err := Calibrate(CalibrationParams{Sensitivity: 2, Epsilon: 1, Delta: 1e-5, Mechanism: MechanismAnalytic})
	if err != nil {
		t.Fatal(err)
	}
	if want := 4 / (2 * c.Sigma * c.Sigma); c.Rho < want || c.Rho > want*(1+1e-15) {
		t.Errorf("ρ = %v, want Δ²/(2σ²) = %v rounded up", c.Rho, want)
	}
	if math.Abs(c.Rho-0.035926) > 1e-6 { // notes §3: ρ of σ = 3.730632·Δ
		t.Errorf("ρ = %v, want 0.035926", c.Rho)
	}
	d, err := Calibrate(CalibrationParams{Sensitivity: 1, Epsilon: 1, Delta: 1e-5, Mechanism: MechanismDiscrete})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d.Sigma-4.0451) > 1e-4 { // notes §3 table, zCDP-CKS at k = 1
		t.Errorf("discrete σ = %v, want 4.0451", d.Sigma)
	}
	if got := CKSDelta(d.Rho, 1); got > 1e-5 {
		t.Errorf("discrete σ: CKS δ = %g > 1e-5", got)
	}
	for _, s := range []string{"analytic", "classic", "discrete", "default", ""} {
		m, err := ParseMechanism(s)
		if err != nil {
			t.Fatal(err)
		}
		if s != "" && m.String() != s {
			t.Errorf("ParseMechanism(%q).String() = %q", s, m)
		}
	}
	if _, err := ParseMechanism("laplace"); err == nil {
		t.Error("ParseMechanism(laplace) succeeded")
	}
}

func ExampleCalibrate() {
	c, err := Calibrate(CalibrationParams{Sensitivity: 1, Epsilon: 1, Delta: 1e-5, Mechanism: MechanismAnalytic})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s σ = %.4f, ρ = %.6f\n", c.Mechanism, c.Sigma, c.Rho)
	// Output: analytic σ = 3.7306, ρ = 0.035926
}

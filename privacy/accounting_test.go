package privacy

import (
	"fmt"
	"math"
	"testing"
)

// Vectors from the notes' port of Steinke's cdp2adp.py (§3).
func TestCKSVectors(t *testing.T) {
	if got := CKSDelta(0.025, 1); math.Abs(got-1.3361e-6) > 1e-10 {
		t.Errorf("CKSDelta(0.025, 1) = %g, want 1.3361e-6", got)
	}
	if got, _ := CKSEpsilon(0.025, 1e-6); math.Abs(got-1.014074) > 1e-6 {
		t.Errorf("CKSEpsilon(0.025, 1e-6) = %.7f, want 1.014074", got)
	}
	if got, _ := CKSRho(1, 1e-6); math.Abs(got-0.0243560) > 1e-7 {
		t.Errorf("CKSRho(1, 1e-6) = %.7f, want 0.0243560", got)
	}
	if got, _ := CKSRho(1, 1e-5); math.Abs(got-0.030557) > 1e-6 {
		t.Errorf("CKSRho(1, 1e-5) = %.7f, want 0.030557", got)
	}
}

// Round trips and safety of the bisections: the returned ε (ρ) is on the
// safe side of δ, and a slightly better value is not.
func TestCKSInverses(t *testing.T) {
	for _, rho := range []float64{1e-4, 0.01, 0.035926, 0.5, 3, 40} {
		for _, delta := range []float64{1e-10, 1e-6, 1e-3} {
			eps, err := CKSEpsilon(rho, delta)
			if err != nil {
				t.Fatal(err)
			}
			if d := CKSDelta(rho, eps); d > delta {
				t.Errorf("ρ=%g δ=%g: CKSDelta(ρ, ε=%g) = %g > δ", rho, delta, eps, d)
			}
			if d := CKSDelta(rho, eps*(1-1e-6)); d <= delta {
				t.Errorf("ρ=%g δ=%g: ε not minimal", rho, delta)
			}
			// Bun–Steinke is looser: ε_CKS ≤ ρ + 2√(ρ ln 1/δ).
			if bs := rho + 2*math.Sqrt(rho*math.Log(1/delta)); eps > bs {
				t.Errorf("ρ=%g δ=%g: CKS ε %g above Bun–Steinke %g", rho, delta, eps, bs)
			}
			back, err := CKSRho(eps, delta)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(back-rho) > 1e-6*rho {
				t.Errorf("CKSRho(CKSEpsilon(%g)) = %g", rho, back)
			}
		}
	}
}

// The exact GDP conversion is Thm 8 with μ = √(2ρ); check it against the
// analytic σ and the notes' composition table (§3, σ = 3.730632 per
// release, total δ = 1e-5).
func TestGaussianConversions(t *testing.T) {
	for _, v := range analyticVectors {
		s, _ := AnalyticSigma(1, v.eps, v.delta)
		eps, err := GaussianEpsilon(1/s, v.delta)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(eps-v.eps) > 1e-6*v.eps {
			t.Errorf("GaussianEpsilon(1/σ(%g,%g)) = %g", v.eps, v.delta, eps)
		}
		rho, _ := GaussianRho(v.eps, v.delta)
		if want := 1 / (2 * s * s); math.Abs(rho-want) > 1e-12*want {
			t.Errorf("GaussianRho(%g,%g) = %g, want %g", v.eps, v.delta, rho, want)
		}
		// The CKS conversion is never tighter than the exact one.
		if ck, _ := CKSRho(v.eps, v.delta); ck > rho {
			t.Errorf("CKSRho(%g,%g) = %g > exact %g", v.eps, v.delta, ck, rho)
		}
	}
	perRelease := 1 / (2 * 3.730632 * 3.730632)
	for _, row := range []struct {
		k              int
		exact, cks, bs float64
	}{
		{1, 1.0000, 1.0922, 1.3222},
		{10, 3.6186, 3.9146, 4.4267},
		{100, 14.4293, 15.4251, 16.4551},
		{365, 34.2287, 36.2447, 37.6867},
	} {
		rho := float64(row.k) * perRelease
		exact, _ := GaussianEpsilon(math.Sqrt(2*rho), 1e-5)
		cks, _ := CKSEpsilon(rho, 1e-5)
		bs := rho + 2*math.Sqrt(rho*math.Log(1e5))
		if math.Abs(exact-row.exact) > 2e-4 || math.Abs(cks-row.cks) > 2e-4 || math.Abs(bs-row.bs) > 2e-4 {
			t.Errorf("k=%d: exact %.4f cks %.4f bs %.4f, want %.4f %.4f %.4f", row.k, exact, cks, bs, row.exact, row.cks, row.bs)
		}
	}
}

func TestLogPhi(t *testing.T) {
	for _, x := range []float64{-36.9, -30, -10, -1, 0, 0.5, 3, 10} {
		want := math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
		if got := logPhi(x); math.Abs(got-want) > 1e-12*math.Abs(want)+1e-15 {
			t.Errorf("logPhi(%g) = %v, want %v", x, got, want)
		}
	}
	// Continuity across the switch to the asymptotic series.
	a, b := logPhi(-37+1e-9), logPhi(-37-1e-9)
	if math.Abs(a-b) > 1e-6 {
		t.Errorf("logPhi jumps at −37: %v vs %v", a, b)
	}
	// Far tail: ln Φ(x) ≈ −x²/2 − ln(−x√(2π)).
	x := -1e4
	if got, want := logPhi(x), -x*x/2-math.Log(-x*math.Sqrt(2*math.Pi)); math.Abs(got-want) > 1e-6 {
		t.Errorf("logPhi(%g) = %v, want %v", x, got, want)
	}
	if d := GaussianDelta(1, 1e6); math.IsNaN(d) || d != 0 {
		t.Errorf("GaussianDelta(1, 1e6) = %v, want 0", d)
	}
}

// Ten releases at the analytic σ of (1, 1e-5): the exact Gaussian-DP total
// (continuous noise) against the CKS20 zCDP total (any ρ-zCDP mechanism,
// the discrete Gaussian included). Values match docs/derivations.md §4.
func ExampleCKSEpsilon() {
	rho := 10 * 1 / (2 * 3.730632 * 3.730632)
	exact, _ := GaussianEpsilon(math.Sqrt(2*rho), 1e-5)
	cks, _ := CKSEpsilon(rho, 1e-5)
	fmt.Printf("exact GDP ε = %.4f, CKS20 ε = %.4f\n", exact, cks)
	// Output: exact GDP ε = 3.6186, CKS20 ε = 3.9146
}

// A lifetime budget (ε, δ) becomes the ledger's ρ_max once.
func ExampleBudget_Rho() {
	rho, _ := Budget{Epsilon: 1, Delta: 1e-5}.Rho()
	fmt.Printf("ρ_max = %.6f\n", rho)
	// Output: ρ_max = 0.030557
}

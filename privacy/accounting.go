package privacy

import (
	"math"
	"math/big"
)

// This file converts between privacy notions:
//
//   - Gaussian DP (Dong, Roth & Su 2019; equivalently Balle & Wang 2018,
//     Thm 8). The continuous Gaussian mechanism with μ = Δ/σ is (ε, δ)-DP
//     for every ε ≥ 0 with exactly
//
//     δ(μ, ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).
//
//     A total zCDP cost ρ of continuous Gaussian releases is μ-GDP with
//     μ = √(2ρ). This conversion is exact for continuous Gaussian noise
//     only.
//
//   - zCDP → (ε, δ) for any ρ-zCDP mechanism (Canonne, Kamath & Steinke
//     2020, "The Discrete Gaussian for Differential Privacy", Cor. 13,
//     arXiv:2004.00010):
//
//     δ = inf over α > 1 of exp((α−1)(αρ − ε)) / (α−1) · (1 − 1/α)^α.
//
//     Every α > 1 gives a valid bound, so an imprecise search only makes δ
//     larger. This is the conversion used for the discrete Gaussian, which
//     is ρ-zCDP (CKS20, Thm 14) but not exactly μ-GDP.
//
// The CKS functions follow Steinke's cdp2adp.py (the reference code of the
// paper) step by step.

// logPhi returns ln Φ(x) for the standard normal CDF Φ, accurate in both
// tails. For x < −37 (where erfc underflows) it uses the asymptotic series
// Φ(x) = φ(x)/|x| · (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸ − …), whose
// truncation error there is below 1e-12 relative.
func logPhi(x float64) float64 {
	switch {
	case x > 0:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x > -37:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	x2 := 1 / (x * x)
	series := 1 - x2 + 3*x2*x2 - 15*x2*x2*x2 + 105*x2*x2*x2*x2
	return -0.5*x*x - math.Log(-x) - 0.5*math.Log(2*math.Pi) + math.Log(series)
}

// phi returns Φ(x) = ½ erfc(−x/√2).
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// GaussianDelta returns the exact δ at which the continuous Gaussian
// mechanism with μ = Δ/σ is (ε, δ)-DP (Balle & Wang 2018, Thm 8):
//
//	δ(μ, ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)
//
// The product e^ε Φ(·) is evaluated as exp(ε + ln Φ(·)), so very large ε
// neither overflows nor produces NaN. It returns NaN for μ ≤ 0, ε < 0 or
// non-finite arguments.
func GaussianDelta(mu, epsilon float64) float64 {
	if !(mu > 0) || math.IsInf(mu, 0) || !(epsilon >= 0) || math.IsInf(epsilon, 0) {
		return math.NaN()
	}
	a := mu/2 - epsilon/mu
	b := -mu/2 - epsilon/mu
	d := phi(a) - math.Exp(epsilon+logPhi(b))
	if d < 0 {
		return 0
	}
	return d
}

// GaussianEpsilon returns the smallest ε (to a relative 1e-12, rounded
// up) with GaussianDelta(μ, ε) ≤ δ: the exact (ε, δ) of a μ-GDP
// continuous Gaussian mechanism. Use μ = √(2ρ) for a total zCDP cost ρ of
// continuous Gaussian releases.
func GaussianEpsilon(mu, delta float64) (float64, error) {
	if !(mu > 0) || math.IsInf(mu, 0) {
		return 0, &ArgumentError{Func: "GaussianEpsilon", Param: "mu", Value: mu, Reason: "must be finite and > 0"}
	}
	if err := checkDelta("GaussianEpsilon", delta); err != nil {
		return 0, err
	}
	if GaussianDelta(mu, 0) <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for GaussianDelta(mu, hi) > delta {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 0) {
			return 0, &ArgumentError{Func: "GaussianEpsilon", Param: "mu", Value: mu, Reason: "is too large to convert"}
		}
	}
	for i := 0; i < 2000 && hi-lo > 1e-12*hi; i++ {
		mid := lo + (hi-lo)/2
		if GaussianDelta(mu, mid) <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// GaussianRho returns the largest zCDP cost ρ whose continuous Gaussian
// releases are (ε, δ)-DP by the exact conversion: ρ = 1/(2σ²) for the
// analytic σ at Δ = 1, rounded down. Proven for continuous Gaussian noise
// only; the ledger uses CKSRho.
func GaussianRho(epsilon, delta float64) (float64, error) {
	s, err := AnalyticSigma(1, epsilon, delta)
	if err != nil {
		return 0, err
	}
	r := new(big.Float).SetPrec(53).SetMode(big.ToNegativeInf)
	den := new(big.Float).SetPrec(200).SetFloat64(s)
	den.Mul(den, den)
	den.Mul(den, big.NewFloat(2))
	r.Quo(big.NewFloat(1), den)
	v, _ := r.Float64()
	return v, nil
}

// CKSDelta returns δ such that a ρ-zCDP mechanism is (ε, δ)-DP
// (CKS20 Cor. 13; cdp_delta in cdp2adp.py):
//
//	δ = inf over α > 1 of exp((α−1)(αρ − ε) + α ln(1 − 1/α)) / (α − 1)
//
// The optimal α solves (2α−1)ρ − ε + ln(1 − 1/α) = 0 and is found by
// bisection on [1.01, (ε+1)/(2ρ) + 2]; any α gives a valid upper bound.
// The result is capped at 1. It returns NaN for negative or non-finite
// arguments.
func CKSDelta(rho, epsilon float64) float64 {
	if !(rho >= 0) || math.IsInf(rho, 0) || !(epsilon >= 0) || math.IsInf(epsilon, 0) {
		return math.NaN()
	}
	if rho == 0 {
		return 0
	}
	amin, amax := 1.01, (epsilon+1)/(2*rho)+2
	var alpha float64
	for i := 0; i < 1000; i++ {
		alpha = (amin + amax) / 2
		deriv := (2*alpha-1)*rho - epsilon + math.Log1p(-1/alpha)
		if deriv < 0 {
			amin = alpha
		} else {
			amax = alpha
		}
		if amax-amin <= 1e-15*amax {
			break
		}
	}
	d := math.Exp((alpha-1)*(alpha*rho-epsilon)+alpha*math.Log1p(-1/alpha)) / (alpha - 1)
	return math.Min(d, 1)
}

// CKSEpsilon returns the smallest ε (bisection, returned from the safe
// upper end) with CKSDelta(ρ, ε) ≤ δ (cdp_eps in cdp2adp.py). ρ = 0 gives 0.
func CKSEpsilon(rho, delta float64) (float64, error) {
	if math.IsNaN(rho) || math.IsInf(rho, 0) || rho < 0 {
		return 0, &ArgumentError{Func: "CKSEpsilon", Param: "rho", Value: rho, Reason: "must be finite and ≥ 0"}
	}
	if err := checkDelta("CKSEpsilon", delta); err != nil {
		return 0, err
	}
	if rho == 0 {
		return 0, nil
	}
	lo := 0.0
	hi := rho + 2*math.Sqrt(rho*math.Log(1/delta)) // Bun–Steinke Prop 1.3: always valid
	for CKSDelta(rho, hi) > delta {
		lo, hi = hi, 2*hi
	}
	for i := 0; i < 1000 && hi-lo > 1e-13*hi; i++ {
		mid := (lo + hi) / 2
		if CKSDelta(rho, mid) <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// CKSRho returns the largest ρ (bisection, returned from the safe lower
// end) with CKSDelta(ρ, ε) ≤ δ (cdp_rho in cdp2adp.py): the zCDP budget
// that guarantees (ε, δ)-DP for any ρ-zCDP mechanism.
func CKSRho(epsilon, delta float64) (float64, error) {
	if err := checkEpsilon("CKSRho", epsilon); err != nil {
		return 0, err
	}
	if err := checkDelta("CKSRho", delta); err != nil {
		return 0, err
	}
	lo, hi := 0.0, epsilon+1
	for CKSDelta(hi, epsilon) <= delta {
		lo, hi = hi, 2*hi
	}
	for i := 0; i < 1000 && hi-lo > 1e-13*hi; i++ {
		mid := (lo + hi) / 2
		if CKSDelta(mid, epsilon) <= delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	if !(lo > 0) {
		return 0, &ArgumentError{Func: "CKSRho", Param: "delta", Value: delta, Reason: "is too small for this epsilon"}
	}
	return lo, nil
}

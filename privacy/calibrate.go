package privacy

import (
	"fmt"
	"math"
	"math/big"

	"github.com/graphcloak/graphcloak/errkind"
)

// CalibrationParams are the inputs of Calibrate. Named fields, so ε and δ
// cannot be swapped by position.
type CalibrationParams struct {
	// Sensitivity is the L2 sensitivity Δ2, finite and > 0.
	Sensitivity float64
	// Epsilon is ε, finite and > 0; Delta is δ, in (0, 1).
	Epsilon, Delta float64
	// Mechanism defaults to the discrete Gaussian (Mechanism.Resolve).
	Mechanism Mechanism
}

// Calibration is a calibrated noise scale.
type Calibration struct {
	Sigma       float64   `json:"sigma"`
	Mechanism   Mechanism `json:"mechanism"`
	Rho         float64   `json:"rho"` // zCDP cost Δ²/(2σ²), rounded up
	Sensitivity float64   `json:"sensitivity"`
	Epsilon     float64   `json:"epsilon"`
	Delta       float64   `json:"delta"`
}

// Calibrate returns σ for one Gaussian release of a value with L2
// sensitivity Δ under (ε, δ)-DP, and its zCDP cost ρ = Δ²/(2σ²).
//
// The default is the discrete Gaussian's σ (DiscreteSigma), what Release
// draws; MechanismAnalytic gives the σ proven for continuous Gaussian
// noise only. Invalid parameters are refused with *ArgumentError, never
// clipped.
func Calibrate(p CalibrationParams) (Calibration, error) {
	if err := validateCalibration("Calibrate", p.Sensitivity, p.Epsilon, p.Delta); err != nil {
		return Calibration{}, err
	}
	m := p.Mechanism.Resolve()
	r, ok := m.Spec()
	if !ok {
		return Calibration{}, &ArgumentError{Func: "Calibrate", Param: "mechanism", Value: m.String(), Reason: "is unknown"}
	}
	sigma, err := r.Sigma(p.Sensitivity, p.Epsilon, p.Delta)
	if err != nil {
		return Calibration{}, err
	}
	return Calibration{
		Sigma: sigma, Mechanism: m, Rho: rhoOf(p.Sensitivity, sigma),
		Sensitivity: p.Sensitivity, Epsilon: p.Epsilon, Delta: p.Delta,
	}, nil
}

func validateCalibration(fn string, sens, eps, delta float64) error {
	if err := checkSensitivity(fn, sens); err != nil {
		return err
	}
	if err := checkEpsilon(fn, eps); err != nil {
		return err
	}
	return checkDelta(fn, delta)
}

// AnalyticSigma returns the smallest σ (to a relative 1e-12, from the safe
// upper end) such that N(0, σ²) noise on a value of L2 sensitivity Δ is
// (ε, δ)-DP, by the exact condition of Balle & Wang (2018, Thm 8):
//
//	Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ
//
// The left side decreases in σ; the root is bracketed by doubling and
// halving from σ = Δ and bisected, keeping the invariant that the upper end
// satisfies the condition, which is asserted on the result. Reference:
// Δ = 1, ε = 1, δ = 1e-5 → σ ≈ 3.730632.
func AnalyticSigma(sensitivity, epsilon, delta float64) (float64, error) {
	if err := validateCalibration("AnalyticSigma", sensitivity, epsilon, delta); err != nil {
		return 0, err
	}
	ok := func(s float64) bool { return GaussianDelta(sensitivity/s, epsilon) <= delta }
	hi := sensitivity
	for !ok(hi) {
		hi *= 2
		if math.IsInf(hi, 0) {
			return 0, &ArgumentError{Func: "AnalyticSigma", Param: "delta", Value: delta, Reason: "is too small to calibrate"}
		}
	}
	lo := hi / 2
	for ok(lo) {
		hi, lo = lo, lo/2
		if lo == 0 {
			return 0, &ArgumentError{Func: "AnalyticSigma", Param: "epsilon", Value: epsilon, Reason: "is too large to calibrate"}
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if !ok(hi) || math.IsNaN(hi) {
		return 0, fmt.Errorf("privacy: AnalyticSigma: internal error: σ = %v fails Thm 8 at ε = %v, δ = %v", hi, epsilon, delta)
	}
	return hi, nil
}

// ClassicSigma returns σ = √(2 ln(1.25/δ)) Δ/ε (Dwork & Roth 2014,
// Thm A.1), which is proven only for ε < 1. For ε ≥ 1 it returns
// *ArgumentError naming the analytic Gaussian mechanism; it never clips ε.
func ClassicSigma(sensitivity, epsilon, delta float64) (float64, error) {
	if err := validateCalibration("ClassicSigma", sensitivity, epsilon, delta); err != nil {
		return 0, err
	}
	if epsilon >= 1 {
		r := errkind.Errorf("must be < 1 for the classic Gaussian mechanism (unproven for ε ≥ 1); use the analytic Gaussian mechanism (%s analytic), valid for every ε > 0", ParamMechanism).(errkind.Renderer)
		return 0, &ArgumentError{Func: "ClassicSigma", Param: "epsilon", Value: epsilon, Reason: r.Error(), reason: r}
	}
	s := math.Sqrt(2*math.Log(1.25/delta)) * sensitivity / epsilon
	return math.Nextafter(math.Nextafter(s, math.Inf(1)), math.Inf(1)), nil // cover 4 roundings
}

// DiscreteSigma returns σ = Δ/√(2ρ) with ρ = CKSRho(ε, δ), rounded up: the
// scale at which the ρ-zCDP discrete Gaussian (CKS20 Thm 14) is (ε, δ)-DP
// by the CKS20 Cor. 13 conversion. It ignores the widening of Δ by the
// grid rounding (Release adds it). Reference: ε = 1, δ = 1e-5 → 4.0451.
func DiscreteSigma(sensitivity, epsilon, delta float64) (float64, error) {
	if err := validateCalibration("DiscreteSigma", sensitivity, epsilon, delta); err != nil {
		return 0, err
	}
	rho, err := CKSRho(epsilon, delta)
	if err != nil {
		return 0, err
	}
	return sigmaForRho(sensitivity, rho), nil
}

// sigmaForRho returns Δ/√(2ρ) rounded up.
func sigmaForRho(sens, rho float64) float64 {
	x := new(big.Float).SetPrec(200).SetMode(big.ToPositiveInf).SetFloat64(sens)
	x.Mul(x, x)
	d := new(big.Float).SetPrec(200).SetMode(big.ToNegativeInf).SetFloat64(rho)
	d.Mul(d, big.NewFloat(2))
	x.Quo(x, d)
	x.Sqrt(x)
	r := new(big.Float).SetPrec(53).SetMode(big.ToPositiveInf).Set(x)
	v, _ := r.Float64()
	return v
}

// rhoOf returns Δ²/(2σ²) rounded up to the next float64.
func rhoOf(sens, sigma float64) float64 {
	num := new(big.Float).SetPrec(200).SetFloat64(sens)
	num.Mul(num, num) // exact at 200 bits
	den := new(big.Float).SetPrec(200).SetFloat64(sigma)
	den.Mul(den, den)
	den.Mul(den, big.NewFloat(2))
	q := new(big.Float).SetPrec(53).SetMode(big.ToPositiveInf)
	q.Quo(num, den)
	v, _ := q.Float64()
	return v
}

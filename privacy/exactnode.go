package privacy

import "math"

// This file says what a per-node Gaussian release protects of a source of
// a given mass: the exact node's privacy at that mass.
//
// A release is calibrated so that one protected unit of reading mass α
// moved one hop is (ε, δ)-DP: Δ2 = α·max over edges of ‖exp(−τL)(e_i − e_j)‖₂.
// The readings are linear in the source, so a source of mass m moved one
// hop changes them by at most (m/α)·Δ2 in L2: for such a source the
// release is the same Gaussian mechanism with sensitivity (m/α)·Δ2. Its
// (ε_m, δ) follows from σ by the release's own accounting — for the
// discrete Gaussian, ρ_m = ((m/α)·Δ2 + γ√n)²/(2σ²) (the grid's rounding
// adds γ√n, as in calibrateDiscrete) and the CKS20 conversion; for
// continuous noise the exact curve of Balle & Wang (2018, Thm 8) at
// μ_m = (m/α)·Δ2/σ. At m = α that is the release's own ε.
//
// This is tighter than the group-privacy lemma (k = ⌈m/α⌉ units give
// (kε, k·e^{(k−1)ε}·δ)), whose δ exceeds 1 — no guarantee at all — as
// soon as e^{(k−1)ε} > 1/(kδ): at ε = 4, δ = 1e-5, from k = 4 on. The
// Gaussian's own ε_m grows with the square of the mass (ρ_m does), not
// linearly: at a fixed δ, a source 30 times heavier than α is far worse
// off than 30ε.

// ExactNodeLimit is the per-hop ε_m above which graphcloak says that the
// exact node of a source is not private (docs/guarantee.md, "Heavy
// sources"): ε-DP lets one release multiply an observer's odds for "the
// source is at this node" against "at its neighbour" by up to e^ε, and
// e^10 ≈ 22 000 is a bound that rules nothing out.
const ExactNodeLimit = 10.0

// NodeNoise is what the exact node's privacy in a per-node Gaussian
// release is computed from: its noise and the sensitivity it was
// calibrated on.
type NodeNoise struct {
	// Sigma is the per-node noise σ; Sensitivity the certified Δ2 of one
	// protected unit Alpha moved one hop; Delta the release's δ.
	Sigma, Sensitivity, Alpha, Delta float64
	// Widening is what the grid's rounding adds to the sensitivity
	// (γ√n for the discrete Gaussian of a release, 0 for continuous noise
	// or a simulation's σ).
	Widening float64
	// Continuous: the noise is continuous Gaussian (the analytic
	// mechanism), whose exact (ε, δ) curve is used; otherwise the
	// discrete Gaussian's ρ-zCDP with the CKS20 conversion, the
	// accounting releases are charged by.
	Continuous bool
}

// NodeNoiseOf is the noise of a published release (its metadata): Δ2, the
// rounding-widened sensitivity, σ, α and δ it records. ok is false when
// the metadata lacks any of them (values read without their release).
func NodeNoiseOf(m ReleaseMeta) (n NodeNoise, ok bool) {
	if !(m.Sigma > 0 && m.Sensitivity > 0 && m.Alpha > 0 && m.Delta > 0 && m.Delta < 1) {
		return NodeNoise{}, false
	}
	w := 0.0
	if m.EffectiveSensitivity > m.Sensitivity {
		w = m.EffectiveSensitivity - m.Sensitivity
	}
	return NodeNoise{Sigma: m.Sigma, Sensitivity: m.Sensitivity, Alpha: m.Alpha, Delta: m.Delta, Widening: w}, true
}

// ExactNode is the privacy of the exact node of a source of one total
// mass in a per-node Gaussian release: moving the whole source one hop.
type ExactNode struct {
	// Mass is the source's total mass (reading units); ProtectedUnits =
	// Mass/α, how many of the units the release protects (Alpha each) it
	// holds.
	Mass           float64 `json:"mass"`
	Alpha          float64 `json:"alpha"`
	ProtectedUnits float64 `json:"protectedUnits"`
	// Epsilon is the ε at Delta (the release's δ) of moving the whole
	// source one hop, by the release's accounting (NodeNoise.Continuous):
	// how well its exact node is hidden among its neighbours.
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// GaussianEpsilon is the exact ε at Delta of continuous Gaussian noise
	// of this σ (Balle & Wang 2018, Thm 8): what the noise gives at its
	// tightest, ≤ Epsilon.
	GaussianEpsilon float64 `json:"gaussianEpsilon"`
	// Private is Epsilon ≤ EpsilonLimit (ExactNodeLimit).
	Private      bool    `json:"private"`
	EpsilonLimit float64 `json:"epsilonLimit"`
	// NotPrivateAbove is the mass above which Epsilon exceeds the limit.
	NotPrivateAbove float64 `json:"notPrivateAbove"`
}

// check refuses noise the exact node's privacy cannot be computed from.
func (n NodeNoise) check(fn string) error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"sigma", n.Sigma}, {"sensitivity", n.Sensitivity}, {"alpha", n.Alpha}} {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return &ArgumentError{Func: fn, Param: p.name, Value: p.v, Reason: "must be finite and > 0"}
		}
	}
	if !(n.Widening >= 0) || math.IsInf(n.Widening, 0) {
		return &ArgumentError{Func: fn, Param: "widening", Value: n.Widening, Reason: "must be finite and ≥ 0"}
	}
	return checkDelta(fn, n.Delta)
}

// ExactNode returns the exact node's privacy for a source of total mass
// m ≥ 0 (reading units).
func (n NodeNoise) ExactNode(m float64) (ExactNode, error) {
	if err := n.check("ExactNode"); err != nil {
		return ExactNode{}, err
	}
	if !(m >= 0) || math.IsInf(m, 0) {
		return ExactNode{}, &ArgumentError{Func: "ExactNode", Param: "mass", Value: m, Reason: "must be finite and ≥ 0"}
	}
	above, err := n.notPrivateAbove()
	if err != nil {
		return ExactNode{}, err
	}
	units := m / n.Alpha
	mu := units * n.Sensitivity / n.Sigma
	ge := 0.0
	if mu > 0 {
		if ge, err = GaussianEpsilon(mu, n.Delta); err != nil {
			return ExactNode{}, err
		}
	}
	eps := ge
	if !n.Continuous {
		rho := rhoOf(units*n.Sensitivity+n.Widening, n.Sigma)
		if eps, err = CKSEpsilon(rho, n.Delta); err != nil {
			return ExactNode{}, err
		}
	}
	return ExactNode{Mass: m, Alpha: n.Alpha, ProtectedUnits: units, Epsilon: eps, Delta: n.Delta, GaussianEpsilon: ge,
		Private: eps <= ExactNodeLimit, EpsilonLimit: ExactNodeLimit, NotPrivateAbove: above}, nil
}

// notPrivateAbove is the mass m* above which the exact node's ε_m exceeds
// ExactNodeLimit: ε_m grows with m, so m* solves ε_m = limit — for the
// discrete Gaussian (m*/α)·Δ2 + w = σ·√(2ρ*) with ρ* = CKSRho(limit, δ),
// for continuous noise (m*/α)·Δ2 = σ·μ* with μ* = 1/AnalyticSigma(1,
// limit, δ). 0 when even no mass is private (the rounding alone exceeds
// the limit).
func (n NodeNoise) notPrivateAbove() (float64, error) {
	var d float64 // the largest sensitivity whose ε is within the limit
	if n.Continuous {
		s, err := AnalyticSigma(1, ExactNodeLimit, n.Delta)
		if err != nil {
			return 0, err
		}
		d = n.Sigma / s
	} else {
		rho, err := CKSRho(ExactNodeLimit, n.Delta)
		if err != nil {
			return 0, err
		}
		d = n.Sigma*math.Sqrt(2*rho) - n.Widening
	}
	return math.Max(0, n.Alpha*d/n.Sensitivity), nil
}

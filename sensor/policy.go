package sensor

import (
	"fmt"
	"math"
)

// DefaultDayDelta is the δ at which a Policy's daily cap is stated when
// Policy.DayDelta is 0.
const DefaultDayDelta = 1e-6

// Policy is what a sensor accepts, whatever the coordinator asks. The
// zero value accepts every well-formed order (no floor, no cap).
//
// Composition. Each report is charged the zCDP cost ρ of its epoch's
// release as the sensor recomputes it from the grid (Cost), and the costs
// of one UTC day add up: ρ-zCDP composes by summation (Bun & Steinke 2016,
// Lemma 2.3). A day whose reports total ρ_day is (ε_day, δ)-DP with
//
//	ε_day = ρ_day + 2·√(ρ_day · ln(1/δ))      (Bun & Steinke 2016, Prop. 1.3)
//
// for δ = DayDelta; the cap admits a report only if ε_day, its own cost
// included, stays ≤ MaxEpsilonPerDay. This holds for the discrete
// Gaussian too (it is ρ-zCDP, Canonne, Kamath & Steinke 2020, Thm. 14), and
// is never smaller than the CKS20 ε the coordinator calibrated with, so the
// cap errs on the safe side. The day is the sensor clock's UTC calendar
// day: across midnight a sensor may pay up to twice the cap within 24 h.
type Policy struct {
	// SigmaFloor refuses an order whose noise σ = 2^−k·√σ̃², computed
	// from its grid, is below it. 0: no floor.
	SigmaFloor float64
	// MaxEpsilonPerDay caps ε_day (above). 0: no cap.
	MaxEpsilonPerDay float64
	// DayDelta is the δ of the cap; 0 means DefaultDayDelta.
	DayDelta float64
	// GraphSHA256, if set, refuses orders for any other graph (the
	// graph fingerprint's sha256, 64 hex digits).
	GraphSHA256 string
}

// Check refuses a policy with negative, infinite or NaN parameters or a
// DayDelta outside (0, 1).
func (p Policy) Check() error {
	ok := func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
	if !ok(p.SigmaFloor) || !ok(p.MaxEpsilonPerDay) || !ok(p.DayDelta) || p.DayDelta >= 1 {
		return fmt.Errorf("sensor: policy: σ floor %v, ε per day %v, δ %v: want finite values ≥ 0 and δ < 1", p.SigmaFloor, p.MaxEpsilonPerDay, p.DayDelta)
	}
	return nil
}

func (p Policy) dayDelta() float64 {
	if p.DayDelta == 0 {
		return DefaultDayDelta
	}
	return p.DayDelta
}

// Cost returns the zCDP cost ρ the sensor charges for reporting to o:
//
//	ρ = max(o.Rho, Δ_eff²/(2σ²)),  Δ_eff = max(o.EffectiveSensitivity, Δ2 + γ√n),
//	σ = γ·√σ̃², γ = 2^−k, n = len(o.Nodes)
//
// σ comes from the grid the noise is actually drawn with, never from the
// order's informational sigma, so an order that understates ρ for its
// grid is charged what its noise really costs. Δ2 is the order's (public,
// certified by the coordinator; the sensor does not recompute it).
func Cost(o Order) float64 {
	gamma := math.Ldexp(1, -o.Sampler.GridExponent)
	eff := max(o.EffectiveSensitivity, o.Sensitivity+gamma*math.Sqrt(float64(len(o.Nodes))))
	sigma := o.Sigma()
	return max(o.Rho, eff*eff/(2*sigma*sigma))
}

// DayEpsilon returns ε_day for a day's total ρ at the policy's δ.
func (p Policy) DayEpsilon(rho float64) float64 {
	return rho + 2*math.Sqrt(rho*math.Log(1/p.dayDelta()))
}

// checkOrder applies the graph and the σ floor.
func (p Policy) checkOrder(o Order) error {
	if p.GraphSHA256 != "" && p.GraphSHA256 != o.Graph.SHA256 {
		return &PolicyError{Rule: "graph", Reason: fmt.Sprintf("the order is for graph %s, the sensor was provisioned for %s", o.Graph.SHA256, p.GraphSHA256)}
	}
	if s := o.Sigma(); s < p.SigmaFloor {
		return &PolicyError{Rule: "sigma-floor", Reason: fmt.Sprintf("the order's noise σ = %.6g (2^-%d·√%d) is below the sensor's floor %.6g",
			s, o.Sampler.GridExponent, o.Sampler.GridVariance, p.SigmaFloor)}
	}
	return nil
}

// checkDay applies the daily cap to a day that has spent spent and a
// report that costs cost.
func (p Policy) checkDay(day string, spent, cost float64) error {
	if p.MaxEpsilonPerDay == 0 {
		return nil
	}
	if e := p.DayEpsilon(spent + cost); e > p.MaxEpsilonPerDay {
		return &PolicyError{Rule: "daily-cap", Reason: fmt.Sprintf("reporting would bring %s (UTC) to ρ = %.6g, ε = %.6g at δ = %g, above the sensor's cap ε = %g (already spent ρ = %.6g)",
			day, spent+cost, e, p.dayDelta(), p.MaxEpsilonPerDay, spent)}
	}
	return nil
}

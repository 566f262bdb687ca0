package sensor

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// DefaultDayDelta is the δ at which a Policy's daily cap is stated when
// Policy.DayDelta is 0.
const DefaultDayDelta = 1e-6

// DefaultMaxValidity is the longest validity window [notBefore, notAfter)
// a sensor accepts when Policy.MaxValidity is 0: an order cannot stay
// usable for years, and a restored odometer can re-report only orders
// whose window is still open (docs/local-sampler.md §10).
const DefaultMaxValidity = 24 * time.Hour

// ErrNoPolicy is wrapped when a Policy lacks α, the σ floor or the daily
// cap: a sensor without a policy never reports.
var ErrNoPolicy = errors.New("sensor: no policy: a sensor needs its α, σ floor and daily cap (keygen --master … --out-dir provisions them)")

// Policy is what a sensor accepts, whatever the coordinator asks. Its
// zero value refuses everything (Check): α, the σ floor and the daily cap
// are required.
//
// Cost. Each report is charged a zCDP cost the sensor computes from its
// own numbers (Cost), never from the order's word alone:
//
//	Δ     = max(order Δ2, SensitivityBound or √2·Alpha)
//	Δ_eff = max(order Δ_eff, Δ + γ√n),  γ = 2^−k,
//	n     = max(len(order.Nodes), order.Graph.NodeCount, ReleaseNodes)
//	ρ     = max(order ρ, Δ_eff²/(2σ²)),  σ = γ·√σ̃²
//
// √2·α bounds Δ2 on every graph and every τ (docs/derivations.md §2.1:
// q_e ≤ 2, so ‖exp(−τL)(e_i − e_j)‖₂ ≤ √2 per unit of mass moved one hop),
// so an order that understates Δ2 is charged at least what the true Δ2
// costs. The costs of one day add up: ρ-zCDP composes by summation (Bun &
// Steinke 2016, Lemma 2.3). A day whose reports total ρ_day is (ε_day,
// δ)-DP with
//
//	ε_day = ρ_day + 2·√(ρ_day · ln(1/δ))      (Bun & Steinke 2016, Prop. 1.3)
//
// for δ = DayDelta; the cap admits a report only if ε_day, its own cost
// included, stays ≤ MaxEpsilonPerDay (and, if MaxReportsPerDay > 0, the
// day's reports stay ≤ MaxReportsPerDay). This holds for the discrete
// Gaussian too (it is ρ-zCDP, Canonne, Kamath & Steinke 2020, Thm. 14).
//
// The cap's day is the UTC calendar date (YYYY-MM-DD) of the sensor's own
// clock at the moment it reports — not the order's window: a report at
// 23:59:59Z counts on that date, one at 00:00:00Z on the next. Across
// midnight a sensor may pay up to twice the cap within 24 h.
type Policy struct {
	// Alpha is the neighbouring radius the sensor protects (the reading
	// mass of one protected unit times hops); required, > 0. The order's
	// α is not used: the coordinator states it.
	Alpha float64
	// SensitivityBound, if > 0, is a proven upper bound on Δ2 of the
	// readings this sensor takes part in at Alpha (the certified Δ2 of its
	// graph at the smallest plausible τ), used instead of √2·Alpha.
	SensitivityBound float64
	// SigmaFloor refuses an order whose noise σ = 2^−k·√σ̃², computed
	// from its grid, is below it; required, > 0.
	SigmaFloor float64
	// MaxEpsilonPerDay caps ε_day (above); required, > 0.
	MaxEpsilonPerDay float64
	// DayDelta is the δ of the cap; 0 means DefaultDayDelta.
	DayDelta float64
	// MaxReportsPerDay, if > 0, caps the number of reports of one day
	// beside the ε cap.
	MaxReportsPerDay int
	// MaxValidity is the longest validity window accepted; 0 means
	// DefaultMaxValidity.
	MaxValidity time.Duration
	// GraphSHA256, if set, refuses orders for any other graph (the
	// graph fingerprint's sha256, 64 hex digits).
	GraphSHA256 string
	// ReleaseNodes, if > 0, is the number of nodes of the releases the
	// sensor takes part in, as provisioned (keygen --out-dir: the number
	// of sensors it provisions): an order that lists fewer — one release
	// split into orders of one node each — is charged as the whole
	// release, whatever it lists or states as its graph's node count.
	ReleaseNodes int
}

// Check refuses a policy without α, σ floor or daily cap (ErrNoPolicy),
// or with negative, infinite or NaN parameters or a DayDelta outside
// [0, 1).
func (p Policy) Check() error {
	fin := func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
	switch {
	case !fin(p.Alpha) || !fin(p.SensitivityBound) || !fin(p.SigmaFloor) || !fin(p.MaxEpsilonPerDay) || !fin(p.DayDelta) || p.DayDelta >= 1 ||
		p.MaxReportsPerDay < 0 || p.MaxValidity < 0 || p.ReleaseNodes < 0:
		return fmt.Errorf("sensor: policy: α %v, Δ2 bound %v, σ floor %v, ε per day %v, δ %v, reports per day %d, validity %v, release nodes %d: want finite values ≥ 0 and δ < 1",
			p.Alpha, p.SensitivityBound, p.SigmaFloor, p.MaxEpsilonPerDay, p.DayDelta, p.MaxReportsPerDay, p.MaxValidity, p.ReleaseNodes)
	case p.Alpha == 0 || p.SigmaFloor == 0 || p.MaxEpsilonPerDay == 0:
		return fmt.Errorf("%w (α %v, σ floor %v, ε per day %v)", ErrNoPolicy, p.Alpha, p.SigmaFloor, p.MaxEpsilonPerDay)
	}
	return nil
}

func (p Policy) dayDelta() float64 {
	if p.DayDelta == 0 {
		return DefaultDayDelta
	}
	return p.DayDelta
}

func (p Policy) maxValidity() time.Duration {
	if p.MaxValidity == 0 {
		return DefaultMaxValidity
	}
	return p.MaxValidity
}

// SensitivityCharged is the Δ2 the sensor charges an order at: the larger
// of the order's and the policy's own bound (SensitivityBound, else
// √2·Alpha).
func (p Policy) SensitivityCharged(o Order) float64 {
	own := p.SensitivityBound
	if own == 0 {
		own = math.Sqrt2 * p.Alpha
	}
	return max(o.Sensitivity, own)
}

// Cost returns the zCDP cost ρ the sensor charges for reporting to o
// (see Policy): from the policy's own Δ2 bound and the grid the noise is
// actually drawn with, whatever Δ2, σ or ρ the order states. The
// rounding term counts the whole release (ChargedNodes), not only the
// nodes the order lists. It is rounded up.
func (p Policy) Cost(o Order) float64 {
	gamma := math.Ldexp(1, -o.Sampler.GridExponent)
	eff := max(o.EffectiveSensitivity, p.SensitivityCharged(o)+gamma*math.Sqrt(float64(p.ChargedNodes(o))))
	sigma := o.Sigma()
	return math.Nextafter(max(o.Rho, eff*eff/(2*sigma*sigma)), math.Inf(1))
}

// ChargedNodes is the n of the rounding term Cost charges: the largest of
// the order's node list, its graph's node count and the policy's
// ReleaseNodes. A coordinator calibrates a release for every node of the
// graph, so an honest order is charged what it states; one split into
// orders of fewer nodes is charged as the whole.
func (p Policy) ChargedNodes(o Order) int {
	return max(len(o.Nodes), o.Graph.NodeCount, p.ReleaseNodes, 1)
}

// DayEpsilon returns ε_day for a day's total ρ at the policy's δ.
func (p Policy) DayEpsilon(rho float64) float64 {
	return rho + 2*math.Sqrt(rho*math.Log(1/p.dayDelta()))
}

// Day is the cap's day of an instant: its UTC calendar date, YYYY-MM-DD.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// checkOrder applies the graph, the validity window's length and the σ
// floor.
func (p Policy) checkOrder(o Order) error {
	if p.GraphSHA256 != "" && p.GraphSHA256 != o.Graph.SHA256 {
		return &PolicyError{Rule: "graph", Reason: fmt.Sprintf("the order is for graph %s, the sensor was provisioned for %s", o.Graph.SHA256, p.GraphSHA256)}
	}
	if w := o.NotAfter.Sub(o.NotBefore); w > p.maxValidity() {
		return &PolicyError{Rule: "validity", Reason: fmt.Sprintf("the order is valid for %v, longer than the sensor accepts (%v)", w, p.maxValidity())}
	}
	if s := o.Sigma(); s < p.SigmaFloor {
		return &PolicyError{Rule: "sigma-floor", Reason: fmt.Sprintf("the order's noise σ = %.6g (2^-%d·√%d) is below the sensor's floor %.6g",
			s, o.Sampler.GridExponent, o.Sampler.GridVariance, p.SigmaFloor)}
	}
	return nil
}

// checkDay applies the daily cap to a day that has spent spent in count
// reports and a report that costs cost.
func (p Policy) checkDay(day string, spent float64, count int, cost float64) error {
	if math.IsInf(spent, 1) {
		return &PolicyError{Rule: "daily-cap", Reason: fmt.Sprintf("the odometer was restored on %s (UTC): that day's spending is unknown, so the sensor reports again from the next UTC day", day)}
	}
	if p.MaxReportsPerDay > 0 && count >= p.MaxReportsPerDay {
		return &PolicyError{Rule: "daily-cap", Reason: fmt.Sprintf("%s (UTC) has %d reports already, the sensor's cap is %d a day", day, count, p.MaxReportsPerDay)}
	}
	if e := p.DayEpsilon(spent + cost); !(e <= p.MaxEpsilonPerDay) {
		return &PolicyError{Rule: "daily-cap", Reason: fmt.Sprintf("reporting would bring %s (UTC) to ρ = %.6g, ε = %.6g at δ = %g, above the sensor's cap ε = %g (already spent ρ = %.6g; this report costs ρ = %.6g)",
			day, spent+cost, e, p.dayDelta(), p.MaxEpsilonPerDay, spent, cost)}
	}
	return nil
}

// SigmaFloorFor returns the smallest σ one report may have under a daily
// cap of maxEpsilonPerDay at δ (0: DefaultDayDelta) when charged at Δ2 =
// delta2 with a negligible grid: Δ2/√(2ρ_cap), ρ_cap the largest ρ with
// ρ + 2√(ρ·ln(1/δ)) ≤ maxEpsilonPerDay. keygen provisions it as the
// default σ floor.
func SigmaFloorFor(delta2, maxEpsilonPerDay, dayDelta float64) float64 {
	if dayDelta == 0 {
		dayDelta = DefaultDayDelta
	}
	// √ρ = −√L + √(L + ε), L = ln(1/δ): the positive root of x² + 2√L·x − ε.
	l := math.Log(1 / dayDelta)
	x := math.Sqrt(l+maxEpsilonPerDay) - math.Sqrt(l)
	return math.Nextafter(delta2/(math.Sqrt2*x), math.Inf(1))
}

// WithDefaultSigmaFloor is p with its σ floor, when unset (0), the one a
// single report charged at p's Δ2 bound (SensitivityBound, else √2·α)
// needs to fit the daily cap (SigmaFloorFor): what keygen provisions. A
// policy without α or a cap is returned as it is (Check refuses it).
func (p Policy) WithDefaultSigmaFloor() Policy {
	if p.SigmaFloor == 0 && p.Alpha > 0 && p.MaxEpsilonPerDay > 0 {
		bound := p.SensitivityBound
		if bound == 0 {
			bound = math.Sqrt2 * p.Alpha
		}
		p.SigmaFloor = SigmaFloorFor(bound, p.MaxEpsilonPerDay, p.DayDelta)
	}
	return p
}

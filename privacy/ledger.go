package privacy

import (
	"context"
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/errkind"
)

// Ledger records the privacy spent under each scope and refuses a release
// that would exceed the budget. It is the one interface the local file
// ledger (FileLedger) and the Neo4j-backed ledger (package connector)
// implement.
//
// Accounting is in zero-concentrated DP (Bun & Steinke 2016): a release
// costs ρ = Δ²/(2σ²) (for the discrete Gaussian with lattice sensitivity Δ,
// Canonne, Kamath & Steinke 2020, Thm 14) and costs add under composition,
// adaptive or not. Pure ε-DP answers cost PureRho(ε) in zCDP too, unless
// the budget fixes an answers' share ε_A (Budget.AnswerEpsilon): then they
// are accounted by their ε against ε_A, apart from the Gaussian releases
// (Spend). A scope is one protected unit over its whole lifetime
// (a deployment, a graph id); every scope of a ledger has the same budget,
// converted once into ρ_max by Budget.Rho.
//
// Contract for implementations:
//   - Charge validates c (ρ finite and > 0, Scope and ReleaseID non-empty)
//     and returns *ArgumentError otherwise, charging nothing.
//   - Charge checks and commits atomically (one transaction, one lock):
//     if (Scope, ReleaseID) was charged before it returns an error wrapping
//     ErrAlreadyCharged and charges nothing; if the scope's Spend with c
//     added does not fit the budget (Budget.Admit) it
//     returns *BudgetError and charges nothing (never clips ρ); otherwise
//     it records c (its ρ, and its ε when it is a pure charge) exactly and
//     the release id, durably, before returning nil.
//   - A charge is never refunded: a release that fails after Charge keeps
//     its cost. The caller must call Charge before any noise is drawn.
//   - Balance returns the spend of one scope (a scope never charged has
//     zero spend) or, when scope is "", of every scope charged so far,
//     sorted by scope.
type Ledger interface {
	// Charge records a release of cost c.Rho under c.Scope and
	// c.ReleaseID before any noise is drawn. It returns *BudgetError when
	// the budget would be exceeded, and an error wrapping
	// ErrAlreadyCharged when the release id was charged before (a retry:
	// the caller must re-publish the stored output, never re-draw).
	Charge(ctx context.Context, c Charge) error
	// Balance reports the spend of scope, or of every scope when scope
	// is "".
	Balance(ctx context.Context, scope string) ([]Balance, error)
}

// ChargeLookup is implemented by ledgers that can say, without charging,
// whether a release id of a scope was charged: a command checks before any
// expensive step (Δ2) that a new release is affordable, and that a retry
// of a charged epoch is one.
type ChargeLookup interface {
	Charged(ctx context.Context, scope, releaseID string) (bool, error)
}

// Charge is the cost of one release.
type Charge struct {
	// Scope is the protected unit the release spends from.
	Scope string
	// ReleaseID identifies the release within the scope (Release uses the
	// epoch / run id). A release id is charged at most once.
	ReleaseID string
	// Rho is the zCDP cost ρ of the release, finite and > 0.
	Rho float64
	// Epsilon, when > 0, marks a pure ε-DP mechanism (a private answer):
	// its privacy loss never exceeds Epsilon, and Rho is at least
	// PureRho(Epsilon). With an answers' share (Budget.AnswerEpsilon) the
	// ledger accounts it by its ε, else by its ρ (see Spend). 0 for
	// Gaussian releases.
	Epsilon float64
	// Delta, with Epsilon > 0, is the answer's δ₀: the probability bound
	// that the stated sensor noise leaves its model (the answer is then
	// (ε, δ₀)-DP, its refusal included). The ledger admits it while the
	// scope's Σδ₀ fits the answers' δ share (Budget.AnswerDelta). 0 for
	// every other charge.
	Delta float64
}

// Validate reports whether c is a well-formed charge.
func (c Charge) Validate() error {
	if c.Scope == "" {
		return &ArgumentError{Func: "Charge", Param: "scope", Reason: "must not be empty"}
	}
	if c.ReleaseID == "" {
		return &ArgumentError{Func: "Charge", Param: "release id", Reason: "must not be empty"}
	}
	if math.IsNaN(c.Rho) || math.IsInf(c.Rho, 0) || c.Rho <= 0 {
		return &ArgumentError{Func: "Charge", Param: "rho", Value: c.Rho, Reason: "must be finite and > 0"}
	}
	if c.Epsilon != 0 {
		if err := checkEpsilon("Charge", c.Epsilon); err != nil {
			return err
		}
		if c.Rho < PureRho(c.Epsilon) {
			return &ArgumentError{Func: "Charge", Param: "rho", Value: c.Rho, Reason: fmt.Sprintf("is below the zCDP cost %g of an ε = %g answer", PureRho(c.Epsilon), c.Epsilon)}
		}
	}
	if c.Delta != 0 && !(c.Epsilon > 0 && c.Delta > 0 && c.Delta < 1) {
		return &ArgumentError{Func: "Charge", Param: "delta", Value: c.Delta, Reason: "must be in (0, 1), and only on an answer's charge (ε > 0)"}
	}
	return nil
}

// Balance is the spend of one scope.
type Balance struct {
	Scope string `json:"scope"`
	// Releases is the number of releases charged.
	Releases int `json:"releases"`
	// RhoSpent and RhoBudget are zCDP ρ: the ρ charged against ρ_max
	// (rounded up) and ρ_max. Without an answers' share that is every
	// charge's ρ, answers' included; with one, the Gaussian releases' only
	// (the answers are charged against ε_A). RhoRemaining =
	// ρ_max − RhoSpent is the largest ρ a Gaussian release may still cost,
	// rounded down, never below 0.
	RhoSpent     float64 `json:"rhoSpent"`
	RhoBudget    float64 `json:"rhoBudget"`
	RhoRemaining float64 `json:"rhoRemaining"`
	// EpsilonSpent is the ε of the spend at the budget's δ:
	// CKSEpsilon(RhoSpent, Budget.Delta), plus PureEpsilonSpent with an
	// answers' share.
	EpsilonSpent float64 `json:"epsilonSpent"`
	// PureEpsilonSpent is the Σε of the pure ε-DP charges (answers),
	// rounded up; PureRhoSpent their ρ, rounded down.
	PureEpsilonSpent float64 `json:"pureEpsilonSpent,omitempty"`
	PureRhoSpent     float64 `json:"pureRhoSpent,omitempty"`
	// AnswerEpsilonRemaining is the largest ε a private answer may still
	// cost: ε_A − PureEpsilonSpent with an answers' share, else the ε
	// whose PureRho(ε) fits RhoRemaining (rounded down).
	AnswerEpsilonRemaining float64 `json:"answerEpsilonRemaining"`
	// AnswerDeltaSpent is the Σδ₀ of the answers charged (rounded up) and
	// AnswerDeltaRemaining the answers' δ share left (δ_A − Σδ₀, rounded
	// down): an answer of δ₀ > 0 fits while δ₀ ≤ it.
	AnswerDeltaSpent     float64 `json:"answerDeltaSpent,omitempty"`
	AnswerDeltaRemaining float64 `json:"answerDeltaRemaining,omitempty"`
	// Budget is the (ε, δ) budget of every scope of the ledger.
	Budget Budget `json:"budget"`
}

// Budget is a lifetime privacy budget (ε_total, δ_total) per scope, and
// the answers' share of it.
type Budget struct {
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// AnswerEpsilon is ε_A, the share of ε_total fixed for private answers
	// when the budget is created (Budget.AnswerEpsilon): answers
	// then fit while their Σε ≤ ε_A, and Gaussian releases while their
	// Σρ ≤ CKSRho(ε_total − ε_A, δ_total) (Spend). 0 — the default, and
	// every ledger written before the share existed — accounts answers in
	// zCDP with the Gaussian releases: Σρ ≤ CKSRho(ε_total, δ_total).
	AnswerEpsilon float64 `json:"answerEpsilon,omitempty"`
	// AnswerDelta is δ_A, the share of δ_total fixed for the δ₀ of private
	// answers under stated Gaussian sensor noise (Charge.Delta): answers
	// fit while their Σδ₀ ≤ δ_A, and the zCDP spend converts at
	// δ_total − δ_A (Rho). 0 — the default, and every ledger written
	// before the share existed — admits only answers of δ₀ = 0.
	AnswerDelta float64 `json:"answerDelta,omitempty"`
	// Sensor is the deployment's sensor model (SensorModel), fixed with
	// the budget: private answers on the scope are certified under it.
	// Zero — the default, and every ledger written before models — lets
	// each answer state its own.
	Sensor SensorModel `json:"sensorModel,omitzero"`
}

// IsZero reports whether b is the zero Budget (no budget given).
func (b Budget) IsZero() bool {
	return b.Epsilon == 0 && b.Delta == 0 && b.AnswerEpsilon == 0 && b.AnswerDelta == 0 && b.Sensor.IsZero()
}

// Validate checks ε > 0 and 0 < δ < 1, both finite, 0 ≤ ε_A ≤ ε,
// 0 ≤ δ_A < δ, and the sensor model (with an answers' δ share to pay
// its δ).
func (b Budget) Validate() error {
	if err := checkEpsilon("Budget", b.Epsilon); err != nil {
		return err
	}
	if err := checkDelta("Budget", b.Delta); err != nil {
		return err
	}
	if !(b.AnswerEpsilon >= 0 && b.AnswerEpsilon <= b.Epsilon) {
		return &ArgumentError{Func: "Budget", Param: "answer epsilon", Value: b.AnswerEpsilon,
			Reason: fmt.Sprintf("must be in [0, ε_total = %g]", b.Epsilon)}
	}
	if !(b.AnswerDelta >= 0 && b.AnswerDelta < b.Delta) {
		return &ArgumentError{Func: "Budget", Param: "answer delta", Value: b.AnswerDelta,
			Reason: fmt.Sprintf("must be in [0, δ_total = %g)", b.Delta)}
	}
	if err := b.Sensor.Validate(); err != nil {
		return err
	}
	if !b.Sensor.IsZero() && b.AnswerDelta == 0 {
		return &ArgumentError{Func: "Budget", Param: "answer delta", Value: 0,
			Reason: "must be > 0 with a sensor model: every answer under noise charges its δ against it"}
	}
	return nil
}

// releaseDelta is the δ the zCDP spend converts at: δ_total − δ_A
// (rounded down).
func (b Budget) releaseDelta() float64 {
	if b.AnswerDelta == 0 {
		return b.Delta
	}
	return diffDown(b.Delta, b.AnswerDelta)
}

// String is the budget as a reader checks it: "ε=8, δ=1e-06" and, with
// an answers' share, ", answers' ε_A=4".
func (b Budget) String() string {
	s := fmt.Sprintf("ε=%g, δ=%g", b.Epsilon, b.Delta)
	if b.AnswerEpsilon > 0 {
		s += fmt.Sprintf(", answers' ε_A=%g", b.AnswerEpsilon)
	}
	if b.AnswerDelta > 0 {
		s += fmt.Sprintf(", answers' δ_A=%g", b.AnswerDelta)
	}
	if !b.Sensor.IsZero() {
		s += ", sensor model (" + b.Sensor.String() + ")"
	}
	return s
}

// Rho converts the budget into the largest total zCDP cost ρ_max whose
// (ε, δ) guarantee fits it, with the Canonne–Kamath–Steinke conversion
// (CKSRho): CKSRho(ε, δ), or with an answers' share ε_A the Gaussian
// releases' CKSRho(ε − ε_A, δ) (rounded down; 0 when the rest is too small
// for any Gaussian release). This conversion is proven for every ρ-zCDP
// mechanism, in particular for the discrete Gaussian that Release
// samples; the exact Gaussian-DP conversion (GaussianRho) is proven only
// for continuous Gaussian noise and is not used for the budget.
func (b Budget) Rho() (float64, error) {
	if err := b.Validate(); err != nil {
		return 0, err
	}
	if !b.shared() {
		return CKSRho(b.Epsilon, b.releaseDelta())
	}
	left := diffDown(b.Epsilon, b.AnswerEpsilon)
	if !(left > 0) {
		return 0, nil
	}
	r, err := CKSRho(left, b.releaseDelta())
	if err != nil {
		return 0, nil // too little ε left for any Gaussian release
	}
	return r, nil
}

// ErrAlreadyCharged is wrapped by Ledger.Charge when the release id was
// charged before. The release must not be drawn again: re-drawing keyed
// noise for a different input y' leaks y − y' exactly, and re-drawing fresh
// noise doubles the cost. The caller re-publishes the stored output
// (the release file, or the values already in the database).
var ErrAlreadyCharged = errkind.New(errkind.Charged, "privacy: release already charged")

// BudgetError reports a charge refused because it would exceed the budget.
// All ρ are zCDP; the ε fields are at Budget.Delta (Balance.EpsilonSpent).
type BudgetError struct {
	Scope     string
	ReleaseID string
	// Spent and Requested are ρ; Remaining is the ρ a Gaussian release may
	// still cost (Balance.RhoRemaining).
	Spent, Requested, Remaining float64
	// AnswerRemaining is the ε an answer may still cost
	// (Balance.AnswerEpsilonRemaining).
	AnswerRemaining float64
	// RequestedEpsilon is the ε of a refused pure ε-DP charge (an answer),
	// else 0; RequestedDelta its δ₀ and AnswerDeltaRemaining the answers'
	// δ share left (Balance.AnswerDeltaRemaining).
	RequestedEpsilon                     float64
	RequestedDelta, AnswerDeltaRemaining float64
	// RhoBudget is ρ_max.
	RhoBudget float64
	Budget    Budget
	// EpsilonSpent and EpsilonAfter are the ε at Budget.Delta of the spend
	// before and after the refused charge.
	EpsilonSpent, EpsilonAfter float64
}

func (e *BudgetError) Error() string { return e.RenderText(paramName) }

// RenderText is its text naming parameters as name does.
func (e *BudgetError) RenderText(name func(errkind.Param) string) string {
	asked := fmt.Sprintf("requested ρ=%.6g", e.Requested)
	hint := ""
	if e.RequestedDelta > e.AnswerDeltaRemaining {
		if e.Budget.AnswerDelta == 0 {
			return fmt.Sprintf("privacy: scope %q has no answers' δ share, so it cannot pay an answer of δ = %.3g (the probability that the stated Gaussian sensor noise leaves the answer's model): "+
				"create a ledger (or a new scope's ledger) with %s, e.g. a tenth of its δ", e.Scope, e.RequestedDelta, name(ParamAnswerDeltaShare))
		}
		return fmt.Sprintf("privacy: answers' δ share exhausted for scope %q: requested an answer of δ = %.3g, %.3g of δ_A = %g left (budget %s)",
			e.Scope, e.RequestedDelta, e.AnswerDeltaRemaining, e.Budget.AnswerDelta, e.Budget)
	}
	if e.RequestedEpsilon > 0 {
		asked = fmt.Sprintf("requested an ε=%.6g answer", e.RequestedEpsilon)
		if e.Budget.AnswerEpsilon == 0 {
			hint = "; this scope has no answers' share, so an answer costs ρ = min(ε²/2, ε) in zCDP: a scope created with " + name(ParamAnswerShare) + " charges answers their ε"
		}
	}
	return fmt.Sprintf("privacy: budget exhausted for scope %q: spent ε=%.6g (ρ=%.6g), %s "+
		"(would reach ε=%.6g), remaining ρ=%.6g for a Gaussian release, ε=%.6g for an answer (budget %s, ρ_max=%.6g)",
		e.Scope, e.EpsilonSpent, e.Spent, asked, e.EpsilonAfter, e.Remaining, e.AnswerRemaining,
		e.Budget, e.RhoBudget) + hint
}

// NewBudgetError reports charge c refused on a scope whose balance before
// it was bal. Ledger implementations use it to report a refusal.
func NewBudgetError(c Charge, bal Balance) *BudgetError {
	return &BudgetError{
		Scope: c.Scope, ReleaseID: c.ReleaseID,
		Spent: bal.RhoSpent, Requested: c.Rho, Remaining: bal.RhoRemaining, RequestedEpsilon: c.Epsilon,
		RequestedDelta: c.Delta, AnswerDeltaRemaining: bal.AnswerDeltaRemaining,
		AnswerRemaining: bal.AnswerEpsilonRemaining,
		RhoBudget:       bal.RhoBudget, Budget: bal.Budget,
		EpsilonSpent: bal.EpsilonSpent, EpsilonAfter: bal.Budget.epsilonOf(bal.after(c)),
	}
}

// ArgumentError reports an invalid privacy parameter (ε, δ, Δ, σ, ρ, …).
// It is never clipped: the caller must fix the value.
type ArgumentError struct {
	Func   string // the function that refused it
	Param  string // the parameter's name
	Value  any    // the value given; nil when it is not shown (secrets, empty strings)
	Reason string
	// reason is Reason naming parameters, when it does.
	reason errkind.Renderer
}

func (e *ArgumentError) Error() string { return e.RenderText(nil) }

// RenderText is its text naming parameters as name does.
func (e *ArgumentError) RenderText(name func(errkind.Param) string) string {
	reason := e.Reason
	if e.reason != nil && name != nil {
		reason = e.reason.RenderText(name)
	}
	if e.Value == nil {
		return fmt.Sprintf("privacy: %s: %s %s", e.Func, e.Param, reason)
	}
	return fmt.Sprintf("privacy: %s: %s = %v %s", e.Func, e.Param, e.Value, reason)
}

func checkEpsilon(fn string, eps float64) error {
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps <= 0 {
		return &ArgumentError{Func: fn, Param: "epsilon", Value: eps, Reason: "must be finite and > 0"}
	}
	return nil
}

func checkDelta(fn string, delta float64) error {
	if math.IsNaN(delta) || !(delta > 0 && delta < 1) {
		return &ArgumentError{Func: fn, Param: "delta", Value: delta, Reason: "must be in (0, 1)"}
	}
	return nil
}

func checkSensitivity(fn string, d float64) error {
	if math.IsNaN(d) || math.IsInf(d, 0) || d <= 0 {
		return &ArgumentError{Func: fn, Param: "sensitivity", Value: d, Reason: "must be finite and > 0"}
	}
	return nil
}

package privacy

import (
	"fmt"
	"math"
	"math/big"
)

// How a scope's spend is admitted (Budget.Admit; docs/guarantee.md, "What a
// budget buys"). Every rule is a filter: it decides from the costs charged
// so far, never from outputs, and stays valid when the analyst chooses each
// charge after seeing everything published before it.
//
//  1. A budget without an answers' share (AnswerEpsilon = 0, the default and
//     every ledger written before the share existed): zCDP alone. Every
//     charge costs ρ (a pure ε-DP answer PureRho(ε)) and Σρ ≤ ρ_max =
//     CKSRho(ε_b, δ_b). A zCDP filter is valid under fully adaptive choice of
//     the costs (Feldman & Zrnic 2021, Rényi filter; Whitehouse et al. 2023).
//  2. A budget with a share ε_A > 0, fixed when the scope is created: two filters run
//     concurrently. Answers: Σε ≤ ε_A (a pure-DP filter, Rogers et al. 2016);
//     Gaussian releases: Σρ_G ≤ ρ_max = CKSRho(ε_b − ε_A, δ_b) (a zCDP
//     filter, converted by CKS20). Concurrent composition of an ε_A-DP and an
//     (ε_b − ε_A, δ_b)-DP interactive mechanism is (ε_b, δ_b)-DP (Vadhan &
//     Wang 2021; Lyu 2022), whatever order the analyst interleaves them in.
//
// The rule ledgers applied before (a charge fitted when either zCDP or the
// "split" Σε + CKSEpsilon(ρ_G) fitted, the split with Σε chosen as the
// scope went) is not valid under adaptive use: the analyst could pick the
// split after seeing outputs (TestAdaptiveSplitStrategy). It is kept only
// to read back the charges such ledgers recorded (Budget.Replay).
//
// zCDP alone converts a single ε = 4 answer to ε ≈ 17 at δ = 10⁻⁵; a share
// ε_A = 4 charges it 4.

// PureRho is the zCDP cost of an ε-DP mechanism, min(ε²/2, ε): an ε-DP
// mechanism is (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4), and also
// ε-zCDP, since its Rényi divergences of every order are at most
// D_∞ ≤ ε < ε·α for α > 1.
func PureRho(epsilon float64) float64 { return min(epsilon*epsilon/2, epsilon) }

// Spend is what a scope has been charged, summed exactly: the ρ of every
// charge and, apart, the ρ and ε of the pure ε-DP charges. The zero value
// is no spend.
type Spend struct {
	rho, pureRho, pureEpsilon big.Rat
	// delta is the Σδ₀ of the answers (Charge.Delta).
	delta big.Rat
}

// Add adds c to s.
func (s *Spend) Add(c Charge) {
	s.rho.Add(&s.rho, new(big.Rat).SetFloat64(c.Rho))
	if c.Epsilon > 0 {
		s.pureRho.Add(&s.pureRho, new(big.Rat).SetFloat64(c.Rho))
		s.pureEpsilon.Add(&s.pureEpsilon, new(big.Rat).SetFloat64(c.Epsilon))
	}
	if c.Delta > 0 {
		s.delta.Add(&s.delta, new(big.Rat).SetFloat64(c.Delta))
	}
}

// Delta returns the answers' Σδ₀ as an exact rational.
func (s *Spend) Delta() *big.Rat { return new(big.Rat).Set(&s.delta) }

// WithDelta sets the answers' Σδ₀ of a Spend rebuilt from stored sums
// (SpendOf) and returns it.
func (s *Spend) WithDelta(d *big.Rat) *Spend {
	s.delta.Set(d)
	return s
}

// clone copies s.
func (s *Spend) clone() *Spend {
	return SpendOf(&s.rho, &s.pureRho, &s.pureEpsilon).WithDelta(&s.delta)
}

// Rho, PureRho and PureEpsilon return the sums as exact rationals (Rho:
// every charge; the others: the pure ε-DP charges), for ledgers that store
// them.
func (s *Spend) Rho() *big.Rat         { return new(big.Rat).Set(&s.rho) }
func (s *Spend) PureRho() *big.Rat     { return new(big.Rat).Set(&s.pureRho) }
func (s *Spend) PureEpsilon() *big.Rat { return new(big.Rat).Set(&s.pureEpsilon) }

// SpendOf rebuilds a Spend from stored sums.
func SpendOf(rho, pureRho, pureEpsilon *big.Rat) *Spend {
	s := &Spend{}
	s.rho.Set(rho)
	s.pureRho.Set(pureRho)
	s.pureEpsilon.Set(pureEpsilon)
	return s
}

// totals are a spend rounded for the checks: rho and gaussRho up,
// pureEps up, so a spend that passes in floats passes exactly.
type totals struct {
	rho      float64 // every charge's ρ
	gaussRho float64 // the ρ of the charges that are not pure
	pureEps  float64 // Σε of the pure charges
	delta    float64 // Σδ₀ of the answers
}

func (s *Spend) totals() totals {
	return totals{rho: ratUp(&s.rho), gaussRho: ratUp(new(big.Rat).Sub(&s.rho, &s.pureRho)), pureEps: ratUp(&s.pureEpsilon),
		delta: ratUp(&s.delta)}
}

// splitRho is the largest ρ_G the pre-share split accounting allowed
// beside pure answers of total ε pureEps: CKSRho(ε_b − pureEps, δ_b)
// (rounded down), 0 when nothing is left, −1 when the answers alone exceed
// the budget. Only Replay uses it.
func (b Budget) splitRho(pureEps float64) float64 {
	left := new(big.Rat).Sub(new(big.Rat).SetFloat64(b.Epsilon), new(big.Rat).SetFloat64(pureEps))
	if left.Sign() < 0 {
		return -1
	}
	if left.Sign() == 0 {
		return 0
	}
	r, err := CKSRho(ratDown(left), b.Delta)
	if err != nil {
		return 0 // too little ε left for any Gaussian release
	}
	return r
}

// shared reports whether the budget fixes an answers' share ε_A.
func (b Budget) shared() bool { return b.AnswerEpsilon > 0 }

// fits reports whether a spend of t fits the budget (ρ_max = rhoMax):
// Σρ ≤ ρ_max without a share; Σε of the answers ≤ ε_A and ρ_G ≤ ρ_max with
// one (ρ_max is then CKSRho(ε_b − ε_A, δ_b)).
func (b Budget) fits(rhoMax float64, t totals) bool {
	if t.delta > b.AnswerDelta {
		return false
	}
	if b.shared() {
		return t.pureEps <= b.AnswerEpsilon && t.gaussRho <= rhoMax
	}
	return t.rho <= rhoMax
}

// fitsBefore is the rule of ledgers written before the answers' share:
// zCDP or the adaptive split (not valid under adaptive use; Replay).
func (b Budget) fitsBefore(rhoMax float64, t totals) bool {
	return t.delta <= b.AnswerDelta && (t.rho <= rhoMax || t.gaussRho <= b.splitRho(t.pureEps))
}

// diffDown is a − c rounded down.
func diffDown(a, c float64) float64 {
	return ratDown(new(big.Rat).Sub(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(c)))
}

// gaussianLeft is the largest ρ a Gaussian release may still cost.
func (b Budget) gaussianLeft(rhoMax float64, t totals) float64 {
	if b.shared() {
		return max(0, diffDown(rhoMax, t.gaussRho))
	}
	return max(0, diffDown(rhoMax, t.rho))
}

// answerLeft is the largest ε an answer may still cost: ε_A − Σε with a
// share; without one, the ε whose PureRho fits the ρ left.
func (b Budget) answerLeft(rhoMax float64, t totals) float64 {
	if b.shared() {
		return max(0, diffDown(b.AnswerEpsilon, t.pureEps))
	}
	r := b.gaussianLeft(rhoMax, t)
	e := r // PureRho(ε) = ε for ε ≥ 2
	if r < 2 {
		e = math.Sqrt(2 * r)
	}
	for e > 0 && PureRho(e) > r {
		e = nextDown(e)
	}
	return e
}

// epsilonOf is the ε at δ_b of a spend of t (rounded up): CKSEpsilon(Σρ)
// without a share; Σε + CKSEpsilon(ρ_G) with one.
func (b Budget) epsilonOf(t totals) float64 {
	rho := t.rho
	if b.shared() {
		rho = t.gaussRho
	}
	eps, err := CKSEpsilon(rho, b.releaseDelta())
	if err != nil {
		return math.Inf(1)
	}
	if !b.shared() || t.pureEps == 0 {
		return eps
	}
	if eps == 0 {
		return t.pureEps
	}
	return nextUp(eps + t.pureEps) // the sum rounds to nearest
}

// BalanceOf is the Balance of a scope that spent s in releases charges,
// under budget b with ρ_max = rhoMax.
func (b Budget) BalanceOf(scope string, releases int, rhoMax float64, s *Spend) Balance {
	t := s.totals()
	rhoSpent := t.rho
	if b.shared() {
		rhoSpent = t.gaussRho
	}
	return Balance{Scope: scope, Releases: releases, RhoSpent: rhoSpent, RhoBudget: rhoMax,
		RhoRemaining: b.gaussianLeft(rhoMax, t), EpsilonSpent: b.epsilonOf(t),
		PureEpsilonSpent: t.pureEps, PureRhoSpent: ratDown(&s.pureRho),
		AnswerEpsilonRemaining: b.answerLeft(rhoMax, t), Budget: b,
		AnswerDeltaSpent: t.delta, AnswerDeltaRemaining: max(0, diffDown(b.AnswerDelta, t.delta))}
}

// Admit returns *BudgetError when charging c to a scope that spent s (and
// holds releases charges) would exceed budget b (ρ_max = rhoMax), else
// nil. It is the check every ledger makes, exactly, before it records a
// charge.
func (b Budget) Admit(rhoMax float64, scope string, releases int, s *Spend, c Charge) error {
	after := s.clone()
	after.Add(c)
	if b.fits(rhoMax, after.totals()) {
		return nil
	}
	return NewBudgetError(c, b.BalanceOf(scope, releases, rhoMax, s))
}

// Replay is Admit for a charge a ledger recorded in the past, when it
// reads its history back: a budget without an answers' share also accepts
// what ledgers admitted before the share existed (zCDP or the adaptive
// split), so a ledger written then still reads. Its balance is accounted
// by the rule of today (zCDP alone), which may show it spent past its
// budget; no new charge is admitted then. Never use it to admit a charge.
func (b Budget) Replay(rhoMax float64, scope string, releases int, s *Spend, c Charge) error {
	err := b.Admit(rhoMax, scope, releases, s, c)
	if err == nil || b.shared() {
		return err
	}
	after := s.clone()
	after.Add(c)
	if b.fitsBefore(rhoMax, after.totals()) {
		return nil
	}
	return err
}

// Admits reports whether charging c fits the balance: the check Admit
// makes, from the rounded sums of a Balance (conservatively: a charge it
// admits, the ledger admits), for the checks a command makes before its
// expensive steps.
func (bal Balance) Admits(c Charge) bool {
	return bal.Budget.fits(bal.RhoBudget, bal.after(c))
}

// after returns the totals of bal's spend with c added, rounded up.
func (bal Balance) after(c Charge) totals {
	sum := func(a, b float64) float64 {
		return ratUp(new(big.Rat).Add(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(b)))
	}
	gauss := bal.gaussianRhoSpent()
	rho := bal.RhoSpent
	if bal.Budget.shared() {
		rho = sum(rho, bal.PureRhoSpent) // every charge's ρ (not checked with a share)
	}
	t := totals{rho: sum(rho, c.Rho), gaussRho: gauss, pureEps: bal.PureEpsilonSpent, delta: bal.AnswerDeltaSpent}
	if c.Delta > 0 {
		t.delta = sum(t.delta, c.Delta)
	}
	if c.Epsilon > 0 {
		t.pureEps = sum(t.pureEps, c.Epsilon)
	} else {
		t.gaussRho = sum(gauss, c.Rho)
	}
	return t
}

// gaussianRhoSpent is the ρ of the charges that are not answers, rounded
// up: RhoSpent with a share (it counts the Gaussian releases only), else
// RhoSpent (rounded up) less PureRhoSpent (rounded down).
func (bal Balance) gaussianRhoSpent() float64 {
	if bal.Budget.shared() {
		return bal.RhoSpent
	}
	return ratUp(new(big.Rat).Sub(new(big.Rat).SetFloat64(bal.RhoSpent), new(big.Rat).SetFloat64(bal.PureRhoSpent)))
}

// String says what the scope spent in the terms a reader checks: ε at the
// budget's δ and, with an answers' share, the answers' ε apart from the
// Gaussian releases' ρ; then what a Gaussian release and an answer may
// still cost.
func (bal Balance) String() string {
	releases := fmt.Sprintf("%d releases", bal.Releases)
	if bal.Releases == 1 {
		releases = "1 release"
	}
	spent := fmt.Sprintf("ρ=%.6g of ρ_max=%.6g", bal.RhoSpent, bal.RhoBudget)
	if bal.Budget.shared() {
		spent = fmt.Sprintf("answers ε=%.6g of ε_A=%g, Gaussian releases ρ=%.6g of ρ_max=%.6g",
			bal.PureEpsilonSpent, bal.Budget.AnswerEpsilon, bal.RhoSpent, bal.RhoBudget)
	} else if bal.PureEpsilonSpent > 0 {
		spent += fmt.Sprintf(", answers' ε=%.6g in it", bal.PureEpsilonSpent)
	}
	if bal.Budget.AnswerDelta > 0 {
		spent += fmt.Sprintf(", answers' δ=%.3g of δ_A=%g", bal.AnswerDeltaSpent, bal.Budget.AnswerDelta)
	}
	return fmt.Sprintf("ε spent %.6g of %g at δ=%g (%s), ρ=%.6g left for a Gaussian release, ε=%.6g for an answer; %s",
		bal.EpsilonSpent, bal.Budget.Epsilon, bal.Budget.Delta, spent, bal.RhoRemaining, bal.AnswerEpsilonRemaining, releases)
}

// Quote is what the balance would read after charge c: the ε spent at
// the budget's δ, and whether the ledger would admit c.
func (bal Balance) Quote(c Charge) (epsilonSpent float64, fits bool) {
	t := bal.after(c)
	return bal.Budget.epsilonOf(t), bal.Budget.fits(bal.RhoBudget, t)
}

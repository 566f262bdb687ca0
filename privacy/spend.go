package privacy

import (
	"fmt"
	"math"
	"math/big"
)

// Two accountings of one scope's spend; the spend fits the budget
// (ε_b, δ_b) when either does (each is a proof of the same guarantee for
// the whole sequence of charges, so the better one may be used):
//
//  1. zCDP: every charge costs ρ (a pure ε-DP answer PureRho(ε)), and the
//     total ρ converts to (ε_b, δ_b) by CKS20: Σρ ≤ ρ_max.
//  2. Split: a pure ε-DP answer's privacy loss never exceeds its ε, so
//     the loss of the whole sequence is at most the loss L_G of the
//     Gaussian releases plus Σε of the answers, pointwise. The moment
//     bound E[e^{(α−1)L_G}] ≤ e^{(α−1)α ρ_G} holds for the Gaussian
//     releases interleaved with anything (one conditional expectation per
//     release), and CKS20's conversion uses nothing else; so the sequence
//     is (CKSEpsilon(ρ_G, δ_b) + Σε, δ_b)-DP: it fits when Σε ≤ ε_b and
//     ρ_G ≤ CKSRho(ε_b − Σε, δ_b) (docs/guarantee.md, "What a budget
//     buys").
//
// zCDP alone converts a single ε = 4 answer to ε ≈ 17 at δ = 10⁻⁵; the
// split accounting charges it 4.

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
}

// Add adds c to s.
func (s *Spend) Add(c Charge) {
	s.rho.Add(&s.rho, new(big.Rat).SetFloat64(c.Rho))
	if c.Epsilon > 0 {
		s.pureRho.Add(&s.pureRho, new(big.Rat).SetFloat64(c.Rho))
		s.pureEpsilon.Add(&s.pureEpsilon, new(big.Rat).SetFloat64(c.Epsilon))
	}
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
}

func (s *Spend) totals() totals {
	return totals{rho: ratUp(&s.rho), gaussRho: ratUp(new(big.Rat).Sub(&s.rho, &s.pureRho)), pureEps: ratUp(&s.pureEpsilon)}
}

// splitRho is the largest ρ_G the split accounting allows beside pure
// answers of total ε pureEps: CKSRho(ε_b − pureEps, δ_b) (rounded down),
// 0 when nothing is left, −1 when the answers alone exceed the budget.
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

// fits reports whether a spend of t fits the budget (ρ_max = rhoMax) by
// either accounting.
func (b Budget) fits(rhoMax float64, t totals) bool {
	return t.rho <= rhoMax || t.gaussRho <= b.splitRho(t.pureEps)
}

// gaussianLeft is the largest ρ a Gaussian release may still cost.
func (b Budget) gaussianLeft(rhoMax float64, t totals) float64 {
	diff := func(a, c float64) float64 {
		return ratDown(new(big.Rat).Sub(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(c)))
	}
	left := diff(rhoMax, t.rho)
	if split := b.splitRho(t.pureEps); split >= 0 {
		left = max(left, diff(split, t.gaussRho))
	}
	return max(0, left)
}

// epsilonOf is the ε at δ_b of a spend of t: the better of the two
// accountings (rounded up).
func (b Budget) epsilonOf(t totals) float64 {
	zcdp, err := CKSEpsilon(t.rho, b.Delta)
	if err != nil {
		zcdp = math.Inf(1)
	}
	split, err := CKSEpsilon(t.gaussRho, b.Delta)
	if err != nil {
		return zcdp
	}
	if split > 0 && t.pureEps > 0 {
		split = nextUp(split + t.pureEps) // the sum rounds to nearest
	} else {
		split += t.pureEps
	}
	return min(zcdp, split)
}

// BalanceOf is the Balance of a scope that spent s in releases charges,
// under budget b with ρ_max = rhoMax.
func (b Budget) BalanceOf(scope string, releases int, rhoMax float64, s *Spend) Balance {
	t := s.totals()
	return Balance{Scope: scope, Releases: releases, RhoSpent: t.rho, RhoBudget: rhoMax,
		RhoRemaining: b.gaussianLeft(rhoMax, t), EpsilonSpent: b.epsilonOf(t),
		PureEpsilonSpent: t.pureEps, PureRhoSpent: ratDown(&s.pureRho), Budget: b}
}

// Admit returns *BudgetError when charging c to a scope that spent s (and
// holds releases charges) would exceed budget b (ρ_max = rhoMax), else
// nil. It is the check every ledger makes, exactly.
func (b Budget) Admit(rhoMax float64, scope string, releases int, s *Spend, c Charge) error {
	after := SpendOf(&s.rho, &s.pureRho, &s.pureEpsilon)
	after.Add(c)
	if b.fits(rhoMax, after.totals()) {
		return nil
	}
	return NewBudgetError(c, b.BalanceOf(scope, releases, rhoMax, s))
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
	t := totals{rho: sum(bal.RhoSpent, c.Rho), gaussRho: gauss, pureEps: bal.PureEpsilonSpent}
	if c.Epsilon > 0 {
		t.pureEps = sum(t.pureEps, c.Epsilon)
	} else {
		t.gaussRho = sum(gauss, c.Rho)
	}
	return t
}

// gaussianRhoSpent is the ρ of the charges that are not answers, rounded
// up (RhoSpent is rounded up, PureRhoSpent down).
func (bal Balance) gaussianRhoSpent() float64 {
	return ratUp(new(big.Rat).Sub(new(big.Rat).SetFloat64(bal.RhoSpent), new(big.Rat).SetFloat64(bal.PureRhoSpent)))
}

// String says what the scope spent in the terms a reader checks: ε at the
// budget's δ by the better accounting and, when answers were charged,
// their ε apart from the Gaussian releases' ρ; then the ρ a Gaussian
// release may still cost.
func (bal Balance) String() string {
	releases := fmt.Sprintf("%d releases", bal.Releases)
	if bal.Releases == 1 {
		releases = "1 release"
	}
	spent := fmt.Sprintf("ρ=%.6g of ρ_max=%.6g", bal.RhoSpent, bal.RhoBudget)
	if bal.PureEpsilonSpent > 0 {
		spent = fmt.Sprintf("answers ε=%.6g, Gaussian releases ρ=%.6g", bal.PureEpsilonSpent, bal.gaussianRhoSpent())
	}
	return fmt.Sprintf("ε spent %.6g of %g at δ=%g (%s), ρ=%.6g left for a Gaussian release; %s",
		bal.EpsilonSpent, bal.Budget.Epsilon, bal.Budget.Delta, spent, bal.RhoRemaining, releases)
}

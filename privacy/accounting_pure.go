package privacy

import (
	"math"
	"math/big"
)

// PureCompositionDelta returns the exact δ at total ε_t of k adaptively
// composed ε-DP mechanisms (the private community answers). The worst case
// is k-fold binary randomized response (Kairouz, Oh & Viswanath 2015,
// Thm 3.3), whose privacy loss is (k − 2l)ε with probability
// C(k, l)·p^{k−l}·(1 − p)^l, p = e^ε/(1 + e^ε), so
//
//	δ(ε_t) = Σ_l C(k, l)·p^{k−l}(1 − p)^l·max(0, 1 − e^{ε_t − (k−2l)ε}),
//
// the optimal composition: no (ε_t, δ′) with δ′ < δ(ε_t) holds for all
// ε-DP mechanisms. Terms are summed in log space; the result is rounded up
// by a relative 1e-12.
func PureCompositionDelta(epsilon float64, k int, epsTotal float64) float64 {
	if !(epsilon > 0) || math.IsInf(epsilon, 0) || k < 0 || !(epsTotal >= 0) {
		return math.NaN()
	}
	if k == 0 {
		return 0
	}
	logP := epsilon - math.Log1p(math.Exp(epsilon)) // ln p
	logQ := -math.Log1p(math.Exp(epsilon))          // ln(1 − p)
	lk, _ := math.Lgamma(float64(k + 1))
	d := 0.0
	for l := 0; l <= k; l++ {
		loss := float64(k-2*l) * epsilon
		if loss <= epsTotal {
			break // losses decrease with l
		}
		ll, _ := math.Lgamma(float64(l + 1))
		lkl, _ := math.Lgamma(float64(k - l + 1))
		logW := lk - ll - lkl + float64(k-l)*logP + float64(l)*logQ
		d += math.Exp(logW) * -math.Expm1(epsTotal-loss)
	}
	return math.Min(1, d*(1+1e-12))
}

// BudgetBuys says how many releases of one kind a budget (ε_total, δ_total)
// pays for under each accountant.
type BudgetBuys struct {
	// ZCDP is what zCDP alone admits over the whole budget: k·ρ ≤ ρ_max,
	// ρ_max = CKSRho(ε_total, δ_total) — the ledger's rule without an
	// answers' share.
	ZCDP int `json:"zcdp"`
	// Ledger is what the ledger admits on a fresh scope of this budget
	// (Budget.Admit): ZCDP without an answers' share; with a share ε_A,
	// answers while k·ε ≤ ε_A and Gaussian releases while
	// k·ρ ≤ CKSRho(ε_total − ε_A, δ_total).
	Ledger int `json:"ledger"`
	// Optimal is the exact composition bound of the release's kind over
	// the whole budget: optimal composition of pure ε-DP
	// (PureCompositionDelta) for answers, the exact μ-GDP curve
	// (GaussianDelta with μ = √k·Δ/σ) for continuous Gaussian releases.
	Optimal int `json:"optimal"`
}

// whole is the budget without its answers' share: zCDP alone.
func (b Budget) whole() Budget { return Budget{Epsilon: b.Epsilon, Delta: b.Delta} }

// AnswersBudgetBuys returns how many ε-DP answers the budget buys.
func AnswersBudgetBuys(budget Budget, epsilon float64) (BudgetBuys, error) {
	rho, err := budget.whole().Rho()
	if err != nil {
		return BudgetBuys{}, err
	}
	rhoLedger, err := budget.Rho()
	if err != nil {
		return BudgetBuys{}, err
	}
	if err := checkEpsilon("AnswersBudgetBuys", epsilon); err != nil {
		return BudgetBuys{}, err
	}
	b := BudgetBuys{ZCDP: int(math.Floor(rho / PureRho(epsilon)))} // as CalibrateAnswer charges
	b.Ledger = largestK(func(k int) bool {
		kr := new(big.Rat).SetInt64(int64(k))
		times := func(x float64) *big.Rat { return new(big.Rat).Mul(kr, new(big.Rat).SetFloat64(x)) }
		return budget.fits(rhoLedger, SpendOf(times(PureRho(epsilon)), times(PureRho(epsilon)), times(epsilon)).totals()) // k answers
	})
	b.Optimal = largestK(func(k int) bool { return PureCompositionDelta(epsilon, k, budget.Epsilon) <= budget.Delta })
	return b, nil
}

// GaussianBudgetBuys returns how many Gaussian releases with noise
// σ/Δ = ratio the budget buys (zCDP as the ledger charges the discrete
// Gaussian, and the exact μ-GDP curve of the continuous Gaussian).
func GaussianBudgetBuys(budget Budget, ratio float64) (BudgetBuys, error) {
	rho, err := budget.whole().Rho()
	if err != nil {
		return BudgetBuys{}, err
	}
	rhoLedger, err := budget.Rho()
	if err != nil {
		return BudgetBuys{}, err
	}
	if !(ratio > 0) || math.IsInf(ratio, 0) {
		return BudgetBuys{}, &ArgumentError{Func: "GaussianBudgetBuys", Param: "ratio", Value: ratio, Reason: "must be finite and > 0"}
	}
	b := BudgetBuys{ZCDP: int(math.Floor(rho * 2 * ratio * ratio))}
	b.Ledger = int(math.Floor(rhoLedger * 2 * ratio * ratio))
	b.Optimal = largestK(func(k int) bool {
		return GaussianDelta(math.Sqrt(float64(k))/ratio, budget.Epsilon) <= budget.Delta
	})
	return b, nil
}

// largestK returns the largest k ≥ 0 with ok(k), ok monotone (true then
// false), searching up to 2^30.
func largestK(ok func(int) bool) int {
	if !ok(1) {
		return 0
	}
	lo, hi := 1, 2
	for ok(hi) {
		lo, hi = hi, 2*hi
		if hi > 1<<30 {
			return lo
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

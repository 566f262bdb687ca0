package textreport

import (
	"fmt"
	"io"
	"math"

	"github.com/graphcloak/graphcloak/privacy"
)

// zcdpRule says how a budget's ε's add up under its zCDP accounting,
// worked on releases at (ε, δ) and answers of ε (a budget with ρ_max =
// rhoMax): a DP user who adds ε's by hand reads 1 + 0.5 = 2.7 as a bug
// otherwise.
func zcdpRule(out io.Writer, b privacy.Budget, rhoMax, epsilon, delta float64) {
	at := b.Delta - b.AnswerDelta // the δ the ledger converts ρ at
	rel, err := privacy.CKSRho(epsilon, delta)
	if err != nil || !(rel > 0) {
		return
	}
	buys := math.Floor(rhoMax / rel)
	if b.AnswerEpsilon > 0 {
		fmt.Fprintf(out, "how the ε's add (zCDP, CKS20): answers are charged their ε against ε_A=%g and those add; a release at ε=%g, δ=%g costs ρ = CKSRho(ε, δ) = %.6g of ρ_max=%.6g, and the ρ's add, then convert back to one ε at δ=%g (ε spent = that ε + the answers' Σε): the releases' share buys %.0f such releases\n",
			b.AnswerEpsilon, epsilon, delta, rel, rhoMax, at, buys)
		return
	}
	half := epsilon / 2
	both, err := privacy.CKSEpsilon(rel+privacy.PureRho(half), at)
	if err != nil {
		return
	}
	fmt.Fprintf(out, "how the ε's add (zCDP, CKS20): costs add as ρ, not as ε — a release at ε=%g, δ=%g costs ρ = CKSRho(ε, δ) = %.6g, an answer at ε costs ρ = min(ε²/2, ε) — and ε spent is Σρ converted back at δ=%g: such a release then an answer at ε=%g read ε=%.3g spent, not %g, while ε_total=%g buys %.0f such releases, not %.0f\n",
		epsilon, delta, rel, at, half, both, epsilon+half, b.Epsilon, buys, math.Floor(b.Epsilon/epsilon))
}

// nextCharge says what one more release at (ε, δ) and one more private
// answer at ε would cost the scope of bal, and what it would read after.
func nextCharge(out io.Writer, bal privacy.Balance, epsilon, delta float64) {
	rho, err := privacy.CKSRho(epsilon, delta)
	if err != nil {
		return
	}
	after, fits := bal.Quote(privacy.Charge{Rho: rho})
	fmt.Fprintf(out, "scope %s: one more release at ε=%g, δ=%g costs ρ=%.6g: %s; ", bal.Scope, epsilon, delta, rho, readsAfter(after, fits, bal))
	ansRho := privacy.PureRho(epsilon)
	after, fits = bal.Quote(privacy.Charge{Rho: ansRho, Epsilon: epsilon})
	cost := fmt.Sprintf("ρ=%.6g", ansRho)
	if bal.Budget.AnswerEpsilon > 0 {
		cost = fmt.Sprintf("ε=%g of ε_A", epsilon)
	}
	fmt.Fprintf(out, "one more private answer at ε=%g costs %s: %s\n", epsilon, cost, readsAfter(after, fits, bal))
}

// readsAfter is what the balance would read after a charge: its ε spent,
// or that the ledger refuses it.
func readsAfter(after float64, fits bool, bal privacy.Balance) string {
	if !fits {
		return fmt.Sprintf("refused (largest that fits: a release of ρ ≤ %.6g, an answer of ε ≤ %.6g)", bal.RhoRemaining, bal.AnswerEpsilonRemaining)
	}
	return fmt.Sprintf("ε spent would read %.3g of %g", after, bal.Budget.Epsilon)
}

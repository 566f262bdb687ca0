// Package ledgertest checks a privacy.Ledger against the contract for
// pure ε-DP charges (private answers), so the file ledger and the Neo4j
// ledger are held to one scenario.
package ledgertest

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// Budget is the scenario's budget, with an answers' share ε_A = 4; every
// scope handed to PureCharges must have been created with it, unspent.
var Budget = privacy.Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}

// NoShare is Budget without an answers' share: answers in zCDP.
var NoShare = privacy.Budget{Epsilon: 8, Delta: 1e-6}

// PureCharges runs the scenario on scope of l (budget Budget):
//
//   - an ε = 3.9 answer fits, though its zCDP cost ρ = 3.9 alone exceeds
//     CKSRho(8, δ): it is charged against ε_A = 4;
//   - the balance then reports ε spent 3.9, no ρ spent, ρ_max =
//     CKSRho(8 − 4, δ) left for a Gaussian release and ε 0.1 for an answer;
//   - a Gaussian release of 0.99 of ρ_max fits; an ε = 1 answer after it
//     does not (Σε would pass ε_A), and is refused with its ε named,
//     charging nothing; an ε = 0.05 answer still fits; a Gaussian release
//     of 0.02·ρ_max does not (however few answers were charged: the
//     shares are fixed);
//   - a pure charge whose ρ is below PureRho(ε) is refused as invalid.
//
// reopen, when not nil, returns the ledger read afresh from its storage,
// whose balance must be the same.
func PureCharges(t *testing.T, l privacy.Ledger, scope string, reopen func() privacy.Ledger) {
	t.Helper()
	ctx := context.Background()
	rhoMax, err := Budget.Rho()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := privacy.CKSRho(Budget.Epsilon-Budget.AnswerEpsilon, Budget.Delta); rhoMax != want {
		t.Fatalf("ρ_max %g of %v, want CKSRho(ε − ε_A, δ) = %g", rhoMax, Budget, want)
	}
	answer := func(id string, eps float64) privacy.Charge {
		return privacy.Charge{Scope: scope, ReleaseID: id, Rho: privacy.PureRho(eps), Epsilon: eps}
	}
	if whole, _ := NoShare.Rho(); privacy.PureRho(3.9) <= whole {
		t.Fatalf("scenario: ρ = %g of an ε = 3.9 answer fits ρ_max = %g by zCDP alone; it tests nothing", privacy.PureRho(3.9), whole)
	}
	if err := l.Charge(ctx, answer("a1", 3.9)); err != nil {
		t.Fatalf("an ε = 3.9 answer under ε_A = 4: %v", err)
	}
	bal := balance(t, l, scope)
	if bal.Releases != 1 || bal.PureEpsilonSpent != 3.9 || bal.EpsilonSpent != 3.9 || bal.RhoSpent != 0 ||
		bal.RhoRemaining != rhoMax || bal.RhoBudget != rhoMax || math.Abs(bal.AnswerEpsilonRemaining-0.1) > 1e-12 || bal.Budget != Budget {
		t.Fatalf("balance after the answer %+v; want ε spent 3.9, ρ %g left for a Gaussian release, ε 0.1 for an answer", bal, rhoMax)
	}
	gauss := 0.99 * rhoMax
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "g1", Rho: gauss}); err != nil {
		t.Fatalf("a Gaussian release of ρ = %g beside the answer: %v", gauss, err)
	}
	err = l.Charge(ctx, answer("a2", 1))
	var be *privacy.BudgetError
	if !errors.As(err, &be) || be.RequestedEpsilon != 1 || be.EpsilonAfter <= Budget.Epsilon || be.EpsilonSpent > Budget.Epsilon {
		t.Fatalf("an ε = 1 answer past the answers' share: %v (%+v), want *BudgetError naming ε = 1", err, be)
	}
	if err := l.Charge(ctx, answer("a3", 0.05)); err != nil {
		t.Fatalf("an ε = 0.05 answer that fits: %v", err)
	}
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "g2", Rho: 0.02 * rhoMax}); !errors.As(err, &be) {
		t.Fatalf("a Gaussian release past ρ_max with ε_A unspent: %v, want *BudgetError", err)
	}
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "a4", Rho: 1e-4, Epsilon: 0.04}); err == nil {
		t.Fatal("a pure charge with ρ below PureRho(ε) was accepted")
	}
	bal = balance(t, l, scope)
	wantEps, _ := privacy.CKSEpsilon(gauss, Budget.Delta)
	wantEps += 3.95
	if bal.Releases != 3 || math.Abs(bal.PureEpsilonSpent-3.95) > 1e-12 || math.Abs(bal.EpsilonSpent-wantEps) > 1e-9 ||
		bal.EpsilonSpent > Budget.Epsilon || bal.RhoSpent != gauss {
		t.Fatalf("final balance %+v; want 3 releases, ε spent %g ≤ %g", bal, wantEps, Budget.Epsilon)
	}
	if reopen != nil {
		if again := balance(t, reopen(), scope); again != bal {
			t.Fatalf("balance read afresh %+v, want %+v", again, bal)
		}
	}
}

// ZCDPCharges runs the scenario of a scope without an answers' share
// (budget NoShare): answers cost PureRho(ε) in zCDP beside the Gaussian
// releases, and nothing is accounted by their ε.
//
//   - an ε = 4 answer is refused (ρ = 4 > ρ_max = CKSRho(8, δ)), charging
//     nothing;
//   - an ε = 1 answer fits, and the balance is ρ = 0.5 spent, ε spent
//     CKSEpsilon(0.5, δ);
//   - a Gaussian release of ρ_max − 0.5 fits exactly, and then neither an
//     ε = 10⁻³ answer nor any Gaussian release does.
func ZCDPCharges(t *testing.T, l privacy.Ledger, scope string) {
	t.Helper()
	ctx := context.Background()
	rhoMax, err := NoShare.Rho()
	if err != nil {
		t.Fatal(err)
	}
	answer := func(id string, eps float64) privacy.Charge {
		return privacy.Charge{Scope: scope, ReleaseID: id, Rho: privacy.PureRho(eps), Epsilon: eps}
	}
	var be *privacy.BudgetError
	if err := l.Charge(ctx, answer("a1", 4)); !errors.As(err, &be) || be.RequestedEpsilon != 4 {
		t.Fatalf("an ε = 4 answer without an answers' share: %v, want *BudgetError", err)
	}
	if err := l.Charge(ctx, answer("a2", 1)); err != nil {
		t.Fatalf("an ε = 1 answer (ρ = 0.5): %v", err)
	}
	bal := balance(t, l, scope)
	wantEps, _ := privacy.CKSEpsilon(0.5, NoShare.Delta)
	if bal.Releases != 1 || bal.RhoSpent != 0.5 || bal.PureEpsilonSpent != 1 || math.Abs(bal.EpsilonSpent-wantEps) > 1e-12 ||
		bal.RhoRemaining > rhoMax-0.5 || bal.AnswerEpsilonRemaining > math.Sqrt(2*(rhoMax-0.5)) {
		t.Fatalf("balance after an ε = 1 answer %+v; want ρ = 0.5 spent, ε spent %g", bal, wantEps)
	}
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "g1", Rho: bal.RhoRemaining}); err != nil {
		t.Fatalf("a Gaussian release of the ρ left: %v", err)
	}
	if err := l.Charge(ctx, answer("a3", 1e-3)); !errors.As(err, &be) {
		t.Fatalf("an ε = 0.001 answer on a spent scope: %v, want *BudgetError", err)
	}
	if bal := balance(t, l, scope); bal.Releases != 2 || bal.RhoSpent > rhoMax || bal.EpsilonSpent > NoShare.Epsilon {
		t.Fatalf("final balance %+v", bal)
	}
}

func balance(t *testing.T, l privacy.Ledger, scope string) privacy.Balance {
	t.Helper()
	b, err := l.Balance(context.Background(), scope)
	if err != nil || len(b) != 1 {
		t.Fatalf("balance of %q: %v, %v", scope, b, err)
	}
	return b[0]
}

// DeltaShare is a budget with an answers' δ share δ_A = 10⁻⁸ (answers under
// stated Gaussian sensor noise, privacy.Charge.Delta); every scope handed to
// DeltaCharges must have been created with it, unspent.
var DeltaShare = privacy.Budget{Epsilon: 8, Delta: 1e-6, AnswerDelta: 1e-8}

// DeltaCharges runs the δ scenario on scope of l (budget DeltaShare): an
// answer of δ₀ = 6·10⁻⁹ fits; one of 5·10⁻⁹ after it does not (Σδ₀ would
// pass δ_A) and is refused naming the share, charging nothing; one of
// 3·10⁻⁹ and one of δ₀ = 0 still fit; the balance reports Σδ₀ = 9·10⁻⁹, and
// the ledger read afresh (reopen, when not nil) the same.
func DeltaCharges(t *testing.T, l privacy.Ledger, scope string, reopen func() privacy.Ledger) {
	t.Helper()
	ctx := context.Background()
	answer := func(sc, id string, delta float64) privacy.Charge {
		return privacy.Charge{Scope: sc, ReleaseID: id, Rho: privacy.PureRho(0.5), Epsilon: 0.5, Delta: delta}
	}
	if err := l.Charge(ctx, answer(scope, "d1", 6e-9)); err != nil {
		t.Fatalf("an answer of δ₀ = 6e-9 under δ_A = 1e-8: %v", err)
	}
	before := balance(t, l, scope)
	var be *privacy.BudgetError
	if err := l.Charge(ctx, answer(scope, "d2", 5e-9)); !errors.As(err, &be) || be.RequestedDelta != 5e-9 {
		t.Fatalf("an answer of δ₀ = 5e-9 past δ_A: %v, want a *BudgetError naming it", err)
	}
	if after := balance(t, l, scope); after != before {
		t.Fatalf("a refused δ charge changed the balance: %+v, was %+v", after, before)
	}
	for i, d := range []float64{3e-9, 0} {
		if err := l.Charge(ctx, answer(scope, "d3"+string(rune('a'+i)), d)); err != nil {
			t.Fatalf("an answer of δ₀ = %g with %g of δ_A left: %v", d, before.AnswerDeltaRemaining, err)
		}
	}
	bal := balance(t, l, scope)
	if bal.Releases != 3 || math.Abs(bal.AnswerDeltaSpent-9e-9) > 1e-20 || bal.AnswerDeltaSpent < 9e-9 || bal.Budget != DeltaShare {
		t.Fatalf("balance %+v, want 3 answers and Σδ₀ = 9e-9 of δ_A = 1e-8", bal)
	}
	if reopen != nil {
		if again := balance(t, reopen(), scope); again != bal {
			t.Fatalf("read afresh: %+v, want %+v", again, bal)
		}
	}
}

// NoDeltaShare: on scope of l, created without a δ share (NoShare, as
// every ledger made before the share), an answer of δ₀ = 0 fits and one of
// δ₀ > 0 is refused.
func NoDeltaShare(t *testing.T, l privacy.Ledger, noShare string) {
	t.Helper()
	ctx := context.Background()
	answer := func(sc, id string, delta float64) privacy.Charge {
		return privacy.Charge{Scope: sc, ReleaseID: id, Rho: privacy.PureRho(0.5), Epsilon: 0.5, Delta: delta}
	}
	var be *privacy.BudgetError
	if err := l.Charge(ctx, answer(noShare, "z1", 0)); err != nil {
		t.Fatalf("an answer of δ₀ = 0 on a scope without a δ share: %v", err)
	}
	if err := l.Charge(ctx, answer(noShare, "z2", 1e-12)); !errors.As(err, &be) || be.Budget.AnswerDelta != 0 {
		t.Fatalf("an answer of δ₀ > 0 on a scope without a δ share: %v, want a *BudgetError", err)
	}
}

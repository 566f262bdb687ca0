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

// Budget is the scenario's budget; every scope handed to PureCharges must
// have been created with it, unspent.
var Budget = privacy.Budget{Epsilon: 8, Delta: 1e-6}

// PureCharges runs the scenario on scope of l:
//
//   - an ε = 4 answer fits, though its zCDP cost ρ = 4 alone exceeds
//     ρ_max (the split accounting: Σε ≤ ε_b with no Gaussian spend);
//   - the balance then reports ε spent 4 and, as the ρ a Gaussian
//     release may still cost, CKSRho(8 − 4, δ);
//   - a Gaussian release of 0.99 of that fits; an ε = 1 answer after it
//     does not (it would need ρ_G ≤ CKSRho(3, δ)), and is refused with
//     its ε named, charging nothing; an ε = 10⁻³ answer still fits;
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
	answer := func(id string, eps float64) privacy.Charge {
		return privacy.Charge{Scope: scope, ReleaseID: id, Rho: privacy.PureRho(eps), Epsilon: eps}
	}
	if privacy.PureRho(4) <= rhoMax {
		t.Fatalf("scenario: ρ = %g of an ε = 4 answer fits ρ_max = %g by zCDP alone; it tests nothing", privacy.PureRho(4), rhoMax)
	}
	if err := l.Charge(ctx, answer("a1", 4)); err != nil {
		t.Fatalf("an ε = 4 answer under an ε = 8 budget: %v", err)
	}
	bal := balance(t, l, scope)
	left, _ := privacy.CKSRho(4, Budget.Delta)
	if bal.Releases != 1 || bal.PureEpsilonSpent != 4 || bal.EpsilonSpent != 4 || bal.RhoSpent != 4 ||
		bal.RhoRemaining > left || bal.RhoRemaining < left*(1-1e-15) {
		t.Fatalf("balance after the answer %+v; want ε spent 4 and ρ %g left for a Gaussian release", bal, left)
	}
	gauss := 0.99 * left
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "g1", Rho: gauss}); err != nil {
		t.Fatalf("a Gaussian release of ρ = %g beside the answer: %v", gauss, err)
	}
	err = l.Charge(ctx, answer("a2", 1))
	var be *privacy.BudgetError
	if !errors.As(err, &be) || be.RequestedEpsilon != 1 || be.EpsilonAfter <= Budget.Epsilon || be.EpsilonSpent > Budget.Epsilon {
		t.Fatalf("an ε = 1 answer past the budget: %v (%+v), want *BudgetError naming ε = 1", err, be)
	}
	if err := l.Charge(ctx, answer("a3", 1e-3)); err != nil {
		t.Fatalf("an ε = 0.001 answer that fits: %v", err)
	}
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "a4", Rho: 0.1, Epsilon: 4}); err == nil {
		t.Fatal("a pure charge with ρ below PureRho(ε) was accepted")
	}
	bal = balance(t, l, scope)
	wantEps, _ := privacy.CKSEpsilon(gauss, Budget.Delta)
	wantEps += 4.001
	if bal.Releases != 3 || math.Abs(bal.PureEpsilonSpent-4.001) > 1e-12 || math.Abs(bal.EpsilonSpent-wantEps) > 1e-9 ||
		bal.EpsilonSpent > Budget.Epsilon {
		t.Fatalf("final balance %+v; want 3 releases, ε spent %g ≤ %g", bal, wantEps, Budget.Epsilon)
	}
	if reopen != nil {
		if again := balance(t, reopen(), scope); again != bal {
			t.Fatalf("balance read afresh %+v, want %+v", again, bal)
		}
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

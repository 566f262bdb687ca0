package integration

import (
	"errors"
	"math/big"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/ledgertest"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestLedger checks the Neo4j ledger against the privacy.Ledger contract:
// charges add up exactly, a charge past the budget is refused and charges
// nothing, a repeated release id is refused with ErrAlreadyCharged, a
// different budget for an existing scope is refused, and concurrent
// charges never overspend.
func TestLedger(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	ctx := ctxT(t)
	budget := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	rhoMax, err := budget.Rho()
	if err != nil {
		t.Fatal(err)
	}
	l, err := connector.NewLedger(ctx, c, "")
	if err != nil {
		t.Fatal(err)
	}
	scope := uniqueName(t, "scope")
	t.Cleanup(func() {
		query(t, d, "MATCH (n) WHERE (n:GraphcloakLedger OR n:GraphcloakCharge) AND n.scope STARTS WITH $p DELETE n",
			map[string]any{"p": scope})
	})
	// Only InitScope creates a scope: a charge to a scope never created is refused.
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "r0", Rho: 1e-9}); !errors.Is(err, privacy.ErrNoScope) {
		t.Fatalf("charge before InitScope: %v, want ErrNoScope", err)
	}
	if _, err := l.Balance(ctx, scope); !errors.Is(err, privacy.ErrNoScope) {
		t.Fatalf("balance before InitScope: %v, want ErrNoScope", err)
	}
	for _, sc := range []string{scope, scope + "_conc"} {
		if err := l.InitScope(ctx, sc, budget); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.InitScope(ctx, scope, budget); err != nil {
		t.Fatalf("re-init with the same budget: %v", err)
	}

	// ρ such that exactly 3 charges fit: 3ρ ≤ ρ_max < 4ρ (checked exactly).
	rho := rhoMax / 3.5
	exact := func(k int) *big.Rat { return new(big.Rat).Mul(big.NewRat(int64(k), 1), new(big.Rat).SetFloat64(rho)) }
	rmax := new(big.Rat).SetFloat64(rhoMax)
	if exact(3).Cmp(rmax) > 0 || exact(4).Cmp(rmax) <= 0 {
		t.Fatalf("test setup: 3ρ and 4ρ do not bracket ρ_max")
	}
	for i, id := range []string{"r1", "r2", "r3"} {
		if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: id, Rho: rho}); err != nil {
			t.Fatalf("charge %d: %v", i+1, err)
		}
	}
	err = l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "r4", Rho: rho})
	var be *privacy.BudgetError
	if !errors.As(err, &be) || be.Requested != rho || be.RhoBudget != rhoMax {
		t.Fatalf("4th charge: err = %v, want *BudgetError", err)
	}
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "r2", Rho: rho / 100}); !errors.Is(err, privacy.ErrAlreadyCharged) {
		t.Fatalf("repeated release id: err = %v, want ErrAlreadyCharged", err)
	}
	bal, err := l.Balance(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	spent3, _ := exact(3).Float64()
	if len(bal) != 1 || bal[0].Releases != 3 || bal[0].RhoSpent < spent3 || bal[0].RhoSpent > spent3*(1+1e-15) ||
		bal[0].RhoBudget != rhoMax || bal[0].Budget != budget {
		t.Fatalf("balance %+v, want 3 releases, ρ spent %v", bal, spent3)
	}
	if r := query(t, d, "MATCH (c:GraphcloakCharge {scope: $s}) RETURN count(c)", map[string]any{"s": scope}); r[0].Values[0] != int64(3) {
		t.Fatalf("%v charge nodes, want 3", r[0].Values[0])
	}
	// A different budget for the same scope is refused, and changes nothing.
	if err := l.InitScope(ctx, scope, privacy.Budget{Epsilon: 2, Delta: 1e-6}); !errors.Is(err, privacy.ErrBudgetMismatch) {
		t.Fatalf("budget mismatch: err = %v", err)
	}
	if bal, _ := l.Balance(ctx, scope); bal[0].Budget != budget {
		t.Fatalf("re-init with another budget changed it: %+v", bal[0].Budget)
	}
	if err := l.Charge(ctx, privacy.Charge{Scope: scope, ReleaseID: "r5", Rho: -1}); err == nil {
		t.Fatal("negative ρ accepted")
	}

	t.Run("pure charges", func(t *testing.T) {
		// Answers are accounted by their ε beside the Gaussian releases,
		// and the sums survive in the scope node (a fresh client reads them).
		pscope := scope + "_pure"
		if err := l.InitScope(ctx, pscope, ledgertest.Budget); err != nil {
			t.Fatal(err)
		}
		ledgertest.PureCharges(t, l, pscope, func() privacy.Ledger {
			c2, _ := connect(t)
			l2, err := connector.NewLedger(ctx, c2, "")
			if err != nil {
				t.Fatal(err)
			}
			return l2
		})
		if r := query(t, d, "MATCH (c:GraphcloakCharge {scope: $s}) WHERE c.epsilon IS NOT NULL RETURN count(c)", map[string]any{"s": pscope}); r[0].Values[0] != int64(2) {
			t.Fatalf("%v charge nodes carry an ε, want the 2 answers", r[0].Values[0])
		}
	})

	t.Run("answers' delta share", func(t *testing.T) {
		// Answers under stated sensor noise carry a δ₀, summed exactly on
		// the scope node against δ_A; a scope without a share (and every
		// scope written before it: no answerDelta property) refuses them.
		dscope := scope + "_delta"
		if err := l.InitScope(ctx, dscope, ledgertest.DeltaShare); err != nil {
			t.Fatal(err)
		}
		ledgertest.DeltaCharges(t, l, dscope, func() privacy.Ledger {
			c2, _ := connect(t)
			l2, err := connector.NewLedger(ctx, c2, "")
			if err != nil {
				t.Fatal(err)
			}
			return l2
		})
		if r := query(t, d, "MATCH (c:GraphcloakCharge {scope: $s}) WHERE c.delta IS NOT NULL RETURN count(c)", map[string]any{"s": dscope}); r[0].Values[0] != int64(2) {
			t.Fatalf("%v charge nodes carry a δ, want the 2 answers of δ₀ > 0", r[0].Values[0])
		}
		nscope := scope + "_nodelta"
		query(t, d, "CREATE (l:GraphcloakLedger {scope: $s, spent: '0', rhoSpent: 0.0, releases: 0, rhoBudget: $r, "+
			"epsilon: 8.0, delta: 1e-6, accounting: 'zcdp-cks20', createdAt: datetime()})",
			map[string]any{"s": nscope, "r": func() float64 { r, _ := ledgertest.NoShare.Rho(); return r }()})
		ledgertest.NoDeltaShare(t, l, nscope)
	})

	t.Run("scope written before the answers' share", func(t *testing.T) {
		// A scope node as InitScope wrote it before answerEpsilon existed,
		// with an ε = 4 answer the adaptive split admitted under (8, 10⁻⁶):
		// it reads as zCDP (spent past its budget) and admits nothing more;
		// no share can be added to it.
		old := privacy.Budget{Epsilon: 8, Delta: 1e-6}
		oldRho, _ := old.Rho()
		lscope := scope + "_legacy"
		query(t, d, "CREATE (l:GraphcloakLedger {scope: $s, spent: '4', rhoSpent: 4.0, releases: 1, rhoBudget: $r, "+
			"epsilon: 8.0, delta: 1e-6, accounting: 'zcdp-cks20', pureRho: '4', pureEpsilon: '4', createdAt: datetime()})",
			map[string]any{"s": lscope, "r": oldRho})
		bal, err := l.Balance(ctx, lscope)
		if err != nil || len(bal) != 1 || bal[0].Budget != old || bal[0].EpsilonSpent <= 8 || bal[0].RhoRemaining != 0 || bal[0].AnswerEpsilonRemaining != 0 {
			t.Fatalf("legacy scope balance %+v, %v; want zCDP: ε spent > 8, nothing left", bal, err)
		}
		var be *privacy.BudgetError
		if err := l.Charge(ctx, privacy.Charge{Scope: lscope, ReleaseID: "g", Rho: 1e-9}); !errors.As(err, &be) {
			t.Fatalf("a charge on the legacy scope: %v, want *BudgetError", err)
		}
		if err := l.InitScope(ctx, lscope, old); err != nil {
			t.Fatalf("re-init with its own budget: %v", err)
		}
		if err := l.InitScope(ctx, lscope, ledgertest.Budget); !errors.Is(err, privacy.ErrBudgetMismatch) {
			t.Fatalf("adding a share: %v, want ErrBudgetMismatch", err)
		}
		// A scope created with a share stores it.
		sscope := scope + "_share"
		if err := l.InitScope(ctx, sscope, ledgertest.Budget); err != nil {
			t.Fatal(err)
		}
		if r := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.answerEpsilon", map[string]any{"s": sscope}); r[0].Values[0] != ledgertest.Budget.AnswerEpsilon {
			t.Fatalf("answerEpsilon stored %v, want %v", r[0].Values[0], ledgertest.Budget.AnswerEpsilon)
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		// 12 goroutines, each its own client (as separate processes
		// would), race to charge a fresh scope where 5 charges fit.
		cscope := scope + "_conc"
		rho := rhoMax / 5.5
		const workers = 12
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for w := 0; w < workers; w++ {
			cw, _ := connect(t)
			lw, err := connector.NewLedger(ctx, cw, "")
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				errs[w] = lw.Charge(ctx, privacy.Charge{Scope: cscope, ReleaseID: "rel" + string(rune('A'+w)), Rho: rho})
			}(w)
		}
		wg.Wait()
		ok, refused := 0, 0
		for _, err := range errs {
			var be *privacy.BudgetError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &be):
				refused++
			default:
				t.Errorf("unexpected error %v", err)
			}
		}
		if ok != 5 || refused != workers-5 {
			t.Fatalf("%d charges succeeded, %d refused; want 5 and %d", ok, refused, workers-5)
		}
		bal, err := l.Balance(ctx, cscope)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := new(big.Rat).Mul(big.NewRat(5, 1), new(big.Rat).SetFloat64(rho)).Float64()
		if bal[0].Releases != 5 || !closeTo(bal[0].RhoSpent, want, 1e-15) || bal[0].RhoSpent > rhoMax {
			t.Fatalf("balance %+v, want 5 releases and ρ %v ≤ %v", bal[0], want, rhoMax)
		}
	})
}

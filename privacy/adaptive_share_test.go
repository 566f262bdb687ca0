package privacy

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestAdaptiveShareStrategy replays the strategy of TestAdaptiveSplitStrategy
// against budgets with an answers' share ε_A: the ledger admits one answer
// of at most ε_A whenever it is asked and Gaussian releases up to
// CKSRho(ε_total − ε_A, δ_total) whatever the answers were, so choosing the
// answer's time from the outputs gains nothing — the exact δ of the
// analyst's best rule is the non-adaptive one, and within the budget.
func TestAdaptiveShareStrategy(t *testing.T) {
	whole, err := Budget{Epsilon: 8, Delta: 1e-6}.Rho()
	if err != nil {
		t.Fatal(err)
	}
	family := []int{5, 25, 400}
	if testing.Short() {
		family = []int{25}
	}
	for _, share := range []float64{1, 4, 6} {
		b := Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: share}
		for _, steps := range family {
			rho := 0.99 * whole / float64(steps)
			s := replayAdaptive(t, b, rho, steps)
			total := s.n
			for j, e := range s.eps {
				if e != share || j+s.rest[j] != total {
					t.Fatalf("ε_A = %g, %d steps: after %d releases the ledger admits an answer of ε = %g and %d releases after it, want ε_A and %d in all",
						share, steps, j, e, s.rest[j], total)
				}
			}
			d := s.delta(b.Epsilon, 0)
			fixed := 0.0
			if total > 0 {
				fixed = mixedDelta(share, s.mu*math.Sqrt(float64(total)), b.Epsilon)
			}
			t.Logf("ε_A = %g, %3d releases of ρ = %.4g (%d admitted), an answer of ε_A whenever: δ(8) = %.4g (not adaptive: %.4g), budget δ = %g",
				share, steps, rho, total, d, fixed, b.Delta)
			if d > b.Delta || math.Abs(d-fixed) > 2e-3*fixed {
				t.Errorf("ε_A = %g, %d releases of ρ = %g: adaptive δ = %.4g, non-adaptive %.4g, budget δ = %g", share, steps, rho, d, fixed, b.Delta)
			}
		}
	}
}

// mixDelta is the exact δ at epsTotal of answers of the given ε
// (randomized response each) composed with Gaussian releases of total ρ:
// every sign pattern of the answers' losses, and the Gaussian tail beside
// it.
func mixDelta(answers []float64, rho, epsTotal float64) float64 {
	mu := math.Sqrt(2 * rho)
	d := 0.0
	for mask := 0; mask < 1<<len(answers); mask++ {
		p, loss := 1.0, 0.0
		for i, e := range answers {
			if mask>>i&1 == 1 {
				p, loss = p/(1+math.Exp(-e)), loss+e
			} else {
				p, loss = p/(1+math.Exp(e)), loss-e
			}
		}
		d += p * gaussTail(mu, epsTotal-loss)
	}
	return d
}

// TestNonAdaptiveMixFits: mixes of answers and Gaussian releases fixed in
// advance fit the file ledger, in any order, up to the rule's edge — with
// a share (the answers' ε summed, up to ε_A = 4, beside Gaussian releases
// up to CKSRho(4, δ): the mix the split admitted for one ε = 4 answer) and
// without (everything in zCDP) — and their exact δ is within the budget.
func TestNonAdaptiveMixFits(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		b       Budget
		answers []float64
	}{
		{Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, []float64{4}},
		{Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, []float64{2, 1.5, 0.5}},
		{Budget{Epsilon: 8, Delta: 1e-6}, []float64{1, 0.5}},
	} {
		rhoMax, _ := c.b.Rho()
		gaussRho := rhoMax
		if c.b.AnswerEpsilon == 0 {
			for _, e := range c.answers {
				gaussRho -= PureRho(e)
			}
		}
		gaussRho *= 1 - 1e-9
		l, err := CreateFileLedger(ctx, filepath.Join(t.TempDir(), "ledger.json"), c.b, FileLedgerOptions{}, "s")
		if err != nil {
			t.Fatal(err)
		}
		// Interleaved: a Gaussian release before each answer, the rest after.
		var charges []Charge
		for i, e := range c.answers {
			charges = append(charges, Charge{Rho: gaussRho / 4}, Charge{Rho: PureRho(e), Epsilon: e})
			if i == 2 {
				break
			}
		}
		charges = append(charges, Charge{Rho: gaussRho - float64(len(charges)/2)*(gaussRho/4)})
		for i, ch := range charges {
			ch.Scope, ch.ReleaseID = "s", string(rune('a'+i))
			if err := l.Charge(ctx, ch); err != nil {
				t.Fatalf("%+v: charge %d of the mix (%+v): %v", c.b, i+1, ch, err)
			}
		}
		bal, _ := l.Balance(ctx, "s")
		if bal[0].EpsilonSpent > c.b.Epsilon || bal[0].RhoRemaining > rhoMax*1e-8 {
			t.Errorf("%+v: balance after the mix %+v, want ε spent ≤ %g and the Gaussian budget spent", c.b, bal[0], c.b.Epsilon)
		}
		if d := mixDelta(c.answers, gaussRho, c.b.Epsilon); d > c.b.Delta {
			t.Errorf("%+v: answers %v beside Gaussian ρ = %g: exact δ = %g > %g", c.b, c.answers, gaussRho, d, c.b.Delta)
		}
	}
}

// A ledger written before the answers' share (testdata: an ε = 4 answer
// beside a Gaussian release, admitted by the adaptive split under
// ε = 8, δ = 10⁻⁶; and a scope with one Gaussian release) still reads, and
// is accounted by today's rule without a share — zCDP: the first scope
// shows ε spent past the budget and admits nothing more, the second is as
// it was. Its budget cannot be given a share afterwards.
func TestLedgerWrittenBeforeShare(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ledger_split_v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := OpenFileLedger(path, FileLedgerOptions{})
	if err != nil {
		t.Fatalf("a ledger written before the share: %v", err)
	}
	b, rhoMax := l.Budget()
	if b != (Budget{Epsilon: 8, Delta: 1e-6}) {
		t.Fatalf("budget read %+v", b)
	}
	bal, err := l.Balance(ctx, "")
	if err != nil || len(bal) != 2 {
		t.Fatalf("balance %v, %v", bal, err)
	}
	plain, split := bal[0], bal[1]
	if want, _ := CKSEpsilon(0.25, 1e-6); plain.Scope != "plain" || plain.RhoSpent != 0.25 || plain.EpsilonSpent != want || plain.RhoRemaining != rhoMax-0.25 {
		t.Errorf("the Gaussian-only scope reads %+v, want ρ = 0.25 spent, ε %g", plain, want)
	}
	if split.Scope != "s" || split.Releases != 2 || split.RhoSpent <= 4 || split.EpsilonSpent <= 8 ||
		split.RhoRemaining != 0 || split.AnswerEpsilonRemaining != 0 || split.PureEpsilonSpent != 4 {
		t.Errorf("the scope the split admitted reads %+v, want zCDP: ρ > 4 spent, ε spent > 8, nothing left", split)
	}
	var be *BudgetError
	for _, c := range []Charge{{Scope: "s", ReleaseID: "g", Rho: 1e-9}, {Scope: "s", ReleaseID: "a", Rho: PureRho(1e-6), Epsilon: 1e-6}} {
		if err := l.Charge(ctx, c); !errors.As(err, &be) {
			t.Errorf("charge %+v on a scope spent past its budget: %v, want *BudgetError", c, err)
		}
	}
	if err := l.Charge(ctx, Charge{Scope: "plain", ReleaseID: "answer", Rho: PureRho(1), Epsilon: 1}); err != nil {
		t.Errorf("an ε = 1 answer in zCDP beside ρ = 0.25: %v", err)
	}
	if _, err := CreateFileLedger(ctx, path, Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, FileLedgerOptions{}, "s"); !errors.Is(err, ErrBudgetMismatch) {
		t.Errorf("giving an old ledger an answers' share: %v, want ErrBudgetMismatch", err)
	}
	if _, err := CreateFileLedger(ctx, path, Budget{Epsilon: 8, Delta: 1e-6}, FileLedgerOptions{}, "s"); err != nil {
		t.Errorf("budget --init with the ledger's own budget: %v", err)
	}
}

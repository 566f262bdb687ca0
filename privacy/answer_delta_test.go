package privacy

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnswerDeltaBudget: δ_A is validated, and the zCDP spend converts at
// δ_total − δ_A (with and without an answers' share ε_A).
func TestAnswerDeltaBudget(t *testing.T) {
	for _, b := range []Budget{{Epsilon: 8, Delta: 1e-6, AnswerDelta: 1e-6}, {Epsilon: 8, Delta: 1e-6, AnswerDelta: -1e-9},
		{Epsilon: 8, Delta: 1e-6, AnswerDelta: 2e-6}} {
		if err := b.Validate(); err == nil {
			t.Errorf("%v: validated", b)
		}
	}
	for _, b := range []Budget{{Epsilon: 8, Delta: 1e-6, AnswerDelta: 1e-7}, {Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4, AnswerDelta: 1e-7}} {
		got, err := b.Rho()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := CKSRho(b.Epsilon-b.AnswerEpsilon, 9e-7)
		if got != want {
			t.Errorf("%v: ρ_max %g, want CKSRho(ε, δ − δ_A) = %g", b, got, want)
		}
	}
}

// TestAnswerDeltaFilter replays adversarial sequences of charges — Gaussian
// releases, answers of δ₀ = 0 and answers of δ₀ > 0 of varying ε and δ₀, each
// chosen after seeing whether the last was admitted (an analyst probing the
// filter) — against a file ledger with an answers' δ share δ_A, checking
// after every step, with exact rationals, that an answer is admitted iff
// the Σδ₀ admitted before plus its own is ≤ δ_A (and its ε or ρ fits), that
// a refused charge leaves nothing, and that the ledger read back (its
// chain replayed) has the same spend.
func TestAnswerDeltaFilter(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 4; seed++ {
		share := 1e-8
		b := Budget{Epsilon: 8, Delta: 1e-6, AnswerDelta: share}
		if seed%2 == 0 {
			b.AnswerEpsilon = 4
		}
		path := filepath.Join(t.TempDir(), "ledger.json")
		l, err := CreateFileLedger(ctx, path, b, FileLedgerOptions{}, "s")
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 70))
		sum := new(big.Rat)
		limit := new(big.Rat).SetFloat64(share)
		admitted, refused, last := 0, 0, true
		for i := 0; i < 120; i++ {
			c := Charge{Scope: "s", ReleaseID: fmt.Sprint("r", i)}
			switch k := rng.IntN(4); {
			case k == 0:
				c.Rho = 0.01
			case k == 1 || !last:
				// after a refusal, probe with the smallest δ₀ that could fit
				eps := 0.05
				c.Epsilon, c.Rho = eps, PureRho(eps)
				rest := new(big.Rat).Sub(limit, sum)
				d, _ := rest.Float64()
				if d <= 0 {
					d = 1e-12
				}
				c.Delta = d * (0.5 + rng.Float64())
			default:
				eps := 0.01 + 0.2*rng.Float64()
				c.Epsilon, c.Rho = eps, PureRho(eps)
				c.Delta = share * rng.Float64() / 3
			}
			before, _ := l.Balance(ctx, "s")
			err := l.Charge(ctx, c)
			after := new(big.Rat).Add(sum, new(big.Rat).SetFloat64(c.Delta))
			fitsDelta := after.Cmp(limit) <= 0
			var be *BudgetError
			switch {
			case err == nil:
				if !fitsDelta {
					t.Fatalf("seed %d step %d: admitted δ₀ = %g with Σδ₀ = %s over δ_A = %g", seed, i, c.Delta, after.FloatString(20), share)
				}
				sum = after
				admitted++
				last = true
			case errors.As(err, &be):
				if fitsDelta && c.Delta > 0 && before[0].Admits(Charge{Scope: "s", ReleaseID: "x", Rho: c.Rho, Epsilon: c.Epsilon}) {
					t.Fatalf("seed %d step %d: refused δ₀ = %g with Σδ₀ %s ≤ δ_A and its ε fitting: %v", seed, i, c.Delta, after.FloatString(20), err)
				}
				now, _ := l.Balance(ctx, "s")
				if now[0] != before[0] {
					t.Fatalf("seed %d step %d: a refused charge changed the balance", seed, i)
				}
				refused++
				last = false
			default:
				t.Fatal(err)
			}
		}
		bal, _ := l.Balance(ctx, "s")
		re, err := OpenFileLedger(path, FileLedgerOptions{})
		if err != nil {
			t.Fatalf("seed %d: the ledger does not read back: %v", seed, err)
		}
		bal2, _ := re.Balance(ctx, "s")
		if bal[0] != bal2[0] || bal[0].AnswerDeltaSpent > share || new(big.Rat).SetFloat64(bal[0].AnswerDeltaSpent).Cmp(sum) < 0 {
			t.Errorf("seed %d: balance %+v, read back %+v, Σδ₀ %s", seed, bal[0], bal2[0], sum.FloatString(20))
		}
		if refused == 0 || admitted == 0 {
			t.Errorf("seed %d: %d admitted, %d refused: the sequence did not probe the filter", seed, admitted, refused)
		}
		t.Logf("seed %d (ε_A %g): %d admitted, %d refused, Σδ₀ = %.6g of δ_A = %g", seed, b.AnswerEpsilon, admitted, refused, bal[0].AnswerDeltaSpent, share)
	}
}

// TestAnswerDeltaWithoutShare: a ledger without an answers' δ share (every
// ledger made before it) admits answers of δ₀ = 0 as before and refuses
// δ₀ > 0 naming the flag that creates the share; an edited δ₀ breaks the
// chain.
func TestAnswerDeltaWithoutShare(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.json")
	l, err := CreateFileLedger(ctx, path, Budget{Epsilon: 8, Delta: 1e-6}, FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Charge(ctx, Charge{Scope: "s", ReleaseID: "a", Rho: PureRho(1), Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	err = l.Charge(ctx, Charge{Scope: "s", ReleaseID: "b", Rho: PureRho(1), Epsilon: 1, Delta: 1e-9})
	var be *BudgetError
	if !errors.As(err, &be) || !strings.Contains(be.Error(), string(ParamAnswerDeltaShare)) {
		t.Fatalf("δ₀ > 0 without a share: %v", err)
	}
	if err := (Charge{Scope: "s", ReleaseID: "c", Rho: 0.1, Delta: 1e-9}).Validate(); err == nil {
		t.Error("a release charge with δ validated")
	}
	// A ledger with a share: an answer's δ₀ is in the chain.
	path2 := filepath.Join(t.TempDir(), "ledger.json")
	l2, err := CreateFileLedger(ctx, path2, Budget{Epsilon: 8, Delta: 1e-6, AnswerDelta: 1e-7}, FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Charge(ctx, Charge{Scope: "s", ReleaseID: "a", Rho: PureRho(1), Epsilon: 1, Delta: 1e-9}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path2)
	edited := strings.Replace(string(data), `"delta": 1e-9`, `"delta": 1e-12`, 1)
	if edited == string(data) {
		t.Fatalf("the charge's δ₀ is not in the file: %s", data)
	}
	if err := os.WriteFile(path2, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFileLedger(path2, FileLedgerOptions{}); err == nil {
		t.Error("a ledger whose δ₀ was edited opened")
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

func TestBudgetCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	// No ledger yet: refused with a hint, not created.
	if _, code, err := runPrivacyCLI(t, "budget", "--ledger", path); code != exitBadInput || !errors.Is(err, privacy.ErrNoLedger) {
		t.Errorf("missing ledger: exit %d, %v", code, err)
	}
	var out string
	var r struct {
		Budget    privacy.Budget
		RhoBudget float64
		Scopes    []privacy.Balance
	}
	for _, scope := range []string{"g1", "g2"} {
		var code int
		var err error
		out, code, err = runPrivacyCLI(t, "budget", "--init", "--ledger", path, "--scope", scope, "--epsilon-total", "1", "--delta-total", "1e-5", "-o", "json")
		if code != 0 {
			t.Fatalf("init: exit %d: %v", code, err)
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Budget.Epsilon != 1 || len(r.Scopes) != 1 || r.Scopes[0].Scope != scope {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if want, _ := privacy.CKSRho(1, 1e-5); r.RhoBudget != want {
		t.Errorf("ρ budget %v, want %v", r.RhoBudget, want)
	}
	// Spend from two scopes, then show.
	l, err := privacy.OpenFileLedger(path, privacy.FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"g1", "g2", "g1"} {
		if err := l.Charge(context.Background(), privacy.Charge{Scope: s, ReleaseID: fmt.Sprint(i), Rho: r.RhoBudget / 4}); err != nil {
			t.Fatal(err)
		}
	}
	out, code, err := runPrivacyCLI(t, "budget", "--ledger", path, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	json.Unmarshal([]byte(out), &r)
	if len(r.Scopes) != 2 || r.Scopes[0].Scope != "g1" || r.Scopes[0].Releases != 2 || r.Scopes[1].Releases != 1 {
		t.Fatalf("scopes %+v", r.Scopes)
	}
	if s := r.Scopes[0]; s.RhoSpent < r.RhoBudget/2 || s.RhoRemaining > r.RhoBudget/2 {
		t.Errorf("g1 balance %+v", s)
	}
	out, _, _ = runPrivacyCLI(t, "budget", "--ledger", path, "--scope", "g2")
	if !strings.Contains(out, "g2") || strings.Contains(out, "g1") {
		t.Errorf("--scope g2 table:\n%s", out)
	}
	// An unknown scope exits 3 and names the --init command.
	if _, code, err := runPrivacyCLI(t, "budget", "--ledger", path, "--scope", "g3"); code != exitBadInput ||
		!errors.Is(err, privacy.ErrNoScope) || !strings.Contains(err.Error(), "budget --init --ledger "+path+" --scope g3") {
		t.Errorf("unknown scope: exit %d, %v", code, err)
	}
	// A different budget is refused, --init with the same is a no-op.
	if _, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", path, "--scope", "g1", "--epsilon-total", "2", "--delta-total", "1e-5"); code != exitBadInput {
		t.Errorf("budget change: exit %d, %v", code, err)
	}
	if _, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", path, "--scope", "g1", "--epsilon-total", "1", "--delta-total", "1e-5"); code != 0 {
		t.Errorf("same budget: exit %d, %v", code, err)
	}
	if _, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", filepath.Join(t.TempDir(), "x.json"), "--epsilon-total", "-1", "--delta-total", "1e-5"); code != exitBadInput {
		t.Errorf("negative budget: exit %d, %v", code, err)
	}
}

// The ledger's refusal maps to exit code 5, a corrupt ledger does not.
func TestBudgetExitCodes(t *testing.T) {
	be := privacy.NewBudgetError(privacy.Charge{Scope: "s", ReleaseID: "e", Rho: 1}, privacy.Balance{Scope: "s", RhoSpent: 0.5, RhoBudget: 1, Budget: privacy.Budget{Epsilon: 1, Delta: 1e-5}})
	if code := exitCode(fmt.Errorf("release: %w", be)); code != exitBudgetExhausted {
		t.Errorf("BudgetError: exit %d", code)
	}
	if code := exitCode(&privacy.LedgerCorruptError{Path: "x", Reason: "checksum"}); code == exitBudgetExhausted || code == exitOK {
		t.Errorf("corrupt ledger: exit %d", code)
	}
}

// budget --init --answer-epsilon fixes the answers' share ε_A: the ledger
// shows it, answers are charged their ε against it and Gaussian releases
// their ρ against CKSRho(ε_total − ε_A, δ_total); it cannot be changed or
// given without --init, nor exceed ε_total.
func TestBudgetAnswerShare(t *testing.T) {
	isolateConfig(t)
	path := filepath.Join(t.TempDir(), "ledger.json")
	init := []string{"budget", "--init", "--ledger", path, "--scope", "s", "--epsilon-total", "8", "--delta-total", "1e-6"}
	if _, code, err := runPrivacyCLI(t, append(init, "--answer-epsilon", "9")...); code != exitBadInput {
		t.Errorf("a share above ε_total: exit %d, %v", code, err)
	}
	out, code, err := runPrivacyCLI(t, append(init, "--answer-epsilon", "4", "-o", "json")...)
	if code != 0 {
		t.Fatalf("init: exit %d: %v", code, err)
	}
	var r struct {
		Budget    privacy.Budget
		RhoBudget float64
		Scopes    []privacy.Balance
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	rhoG, _ := privacy.CKSRho(4, 1e-6)
	if r.Budget != (privacy.Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}) || r.RhoBudget != rhoG ||
		len(r.Scopes) != 1 || r.Scopes[0].AnswerEpsilonRemaining != 4 || r.Scopes[0].RhoRemaining != rhoG {
		t.Fatalf("ledger with a share: %s", out)
	}
	if _, code, err := runPrivacyCLI(t, init...); code != exitBadInput || !errors.Is(err, privacy.ErrBudgetMismatch) {
		t.Errorf("re-init without the share: exit %d, %v", code, err)
	}
	if _, code, err := runPrivacyCLI(t, "budget", "--ledger", path, "--answer-epsilon", "4"); code != exitUsage {
		t.Errorf("--answer-epsilon without --init: exit %d, %v", code, err)
	}
	l, err := privacy.OpenFileLedger(path, privacy.FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Charge(context.Background(), privacy.Charge{Scope: "s", ReleaseID: "a", Rho: privacy.PureRho(3), Epsilon: 3}); err != nil {
		t.Fatalf("an ε = 3 answer under ε_A = 4: %v", err)
	}
	out, _, _ = runPrivacyCLI(t, "budget", "--ledger", path)
	if !strings.Contains(out, "answers' ε_A=4") || !strings.Contains(out, "EPSILON REMAINING (ANSWER)") {
		t.Errorf("table:\n%s", out)
	}
}

// plan --answer-epsilon: BUDGET BUYS counts what the ledger admits under
// that share (one ε = 4 answer in ε_A = 4; none without a share, where an
// answer costs ρ = 4 > ρ_max), and the JSON carries the budget.
func TestPlanBudgetBuysShare(t *testing.T) {
	isolateConfig(t)
	plan := func(extra ...string) (budgetBuys privacy.BudgetBuys, budget map[string]float64, table string) {
		args := append([]string{"plan", "--graph", "karate", "--mode", "private-answer", "--epsilon", "4", "--trials", "4",
			"--epsilon-total", "8", "--delta-total", "1e-6"}, extra...)
		out, code, err := runPrivacyCLI(t, append(args, "-o", "json")...)
		if code != 0 {
			t.Fatalf("plan %v: exit %d: %v", extra, code, err)
		}
		var r struct {
			Budget map[string]float64
			Plan   struct {
				Forecasts []struct{ BudgetBuys *privacy.BudgetBuys }
			}
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Plan.Forecasts) != 1 || r.Plan.Forecasts[0].BudgetBuys == nil {
			t.Fatalf("plan %v: %v\n%s", extra, err, out)
		}
		table, _, _ = runPrivacyCLI(t, args...)
		return *r.Plan.Forecasts[0].BudgetBuys, r.Budget, table
	}
	bb, b, table := plan()
	if bb.Ledger != 0 || bb.ZCDP != 0 || bb.Optimal != 2 || b["answerEpsilon"] != 0 || !strings.Contains(table, "no answers' share") {
		t.Errorf("without a share: buys %+v, budget %v\n%s", bb, b, table)
	}
	bb, b, table = plan("--answer-epsilon", "4")
	if rhoG, _ := privacy.CKSRho(4, 1e-6); bb.Ledger != 1 || bb.ZCDP != 0 || b["answerEpsilon"] != 4 || b["rhoBudget"] != rhoG || !strings.Contains(table, "answers while Σε ≤ 4") {
		t.Errorf("with ε_A = 4: buys %+v, budget %v\n%s", bb, b, table)
	}
}

// budget --init --ledger /nonexistent/x.json created /nonexistent/.
func TestNoImplicitDirectories(t *testing.T) {
	isolateConfig(t)
	missing := filepath.Join(t.TempDir(), "nonexistent")
	_, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", filepath.Join(missing, "x.json"), "--epsilon-total", "1", "--delta-total", "1e-6")
	if code != exitBadInput {
		t.Errorf("exit %d (%v), want 3", code, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("budget --init created the directory")
	}
}

package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// budget over several scopes of a Neo4j ledger (a
// budget per scope) shows each scope's totals. Before, the first scope's
// budget was printed as every scope's ("budget ε=4, δ=1e-06 per scope")
// and put in the JSON's top-level budget.
func TestBudgetEachScopesTotals(t *testing.T) {
	mk := func(scope string, b privacy.Budget) privacy.Balance {
		rho, err := b.Rho()
		if err != nil {
			t.Fatal(err)
		}
		return privacy.Balance{Scope: scope, Budget: b, RhoBudget: rho, RhoRemaining: rho}
	}
	bal := []privacy.Balance{mk("building-7", privacy.Budget{Epsilon: 4, Delta: 1e-6}), mk("whisper", privacy.Budget{Epsilon: 20, Delta: 1e-5, AnswerEpsilon: 8})}
	r := privacy.NewLedgerReport("neo4j", nil, bal)
	if r.Budget != nil {
		t.Fatal("two budgets taken for one")
	}
	var b bytes.Buffer
	if err := printBudget(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "per scope (") {
		t.Errorf("one budget stated for every scope:\n%s", out)
	}
	for _, s := range bal {
		line := grepLines(out, s.Scope)
		if !strings.Contains(line, s.Budget.String()) || !strings.Contains(line, fmt.Sprintf("%.6g", s.RhoBudget)) {
			t.Errorf("scope %s's row lacks its budget %v (ρ_max %.6g):\n%s", s.Scope, s.Budget, s.RhoBudget, out)
		}
	}
	// One shared budget: stated once, as before.
	b.Reset()
	same := []privacy.Balance{bal[0], mk("b8", bal[0].Budget)}
	r = privacy.NewLedgerReport("neo4j", nil, same)
	if r.Budget == nil || *r.Budget != same[0].Budget || r.RhoBudget != same[0].RhoBudget {
		t.Fatal("one budget taken for two")
	}
	_ = printBudget(&b, r)
	if !strings.Contains(b.String(), "budget ε=4, δ=1e-06 per scope") {
		t.Errorf("shared budget not stated:\n%s", b.String())
	}
}

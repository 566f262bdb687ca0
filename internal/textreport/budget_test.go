package textreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// paramName names a parameter as a test reads it back.
func paramName(p errkind.Param) string { return "<" + string(p) + ">" }

// lineWith is the first line of s containing sub ("" when none does).
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// budget over several scopes of a Neo4j ledger (a budget per scope)
// shows each scope's totals. Before, the first scope's budget was printed
// as every scope's ("budget ε=4, δ=1e-06 per scope") and put in the
// JSON's top-level budget.
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
	if err := Budget(&b, r, 1, 1e-6, paramName); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "per scope (") {
		t.Errorf("one budget stated for every scope:\n%s", out)
	}
	for _, s := range bal {
		line := lineWith(out, s.Scope)
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
	_ = Budget(&b, r, 1, 1e-6, paramName)
	if !strings.Contains(b.String(), "budget ε=4, δ=1e-06 per scope") {
		t.Errorf("shared budget not stated:\n%s", b.String())
	}
}

// TestBudgetOverspent: a scope spent past its budget (answers admitted
// by the rule before the answers' share) gets one line naming it and the
// parameter that makes a new scope with a share; the others get none.
func TestBudgetOverspent(t *testing.T) {
	b := privacy.Budget{Epsilon: 1, Delta: 1e-6}
	bal := []privacy.Balance{
		{Scope: "old", Budget: b, EpsilonSpent: 1.5},
		{Scope: "fine", Budget: b, EpsilonSpent: 0.5},
	}
	var out bytes.Buffer
	if err := Budget(&out, privacy.NewLedgerReport("ledger.json", nil, bal), 1, 1e-6, paramName); err != nil {
		t.Fatal(err)
	}
	line := lineWith(out.String(), "spent past its budget")
	if !strings.HasPrefix(line, "scope old:") || !strings.Contains(line, paramName(privacy.ParamAnswerShare)) {
		t.Errorf("overspent line %q: want scope old and the answers' share named", line)
	}
	if strings.Count(out.String(), "spent past its budget") != 1 {
		t.Errorf("want one overspent line:\n%s", out.String())
	}
}

// TestBudgetEmpty: a ledger with no charges says so instead of a table.
func TestBudgetEmpty(t *testing.T) {
	var out bytes.Buffer
	if err := Budget(&out, privacy.NewLedgerReport("ledger.json", nil, nil), 1, 1e-6, paramName); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "no releases charged yet\n") || strings.Contains(out.String(), "SCOPE") {
		t.Errorf("empty ledger:\n%s", out.String())
	}
}

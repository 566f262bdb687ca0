package privacy

import "testing"

// A report states one budget only when every scope has it, and lists no
// scopes as an empty list.
func TestNewLedgerReport(t *testing.T) {
	a := Balance{Scope: "a", Budget: Budget{Epsilon: 4, Delta: 1e-6}, RhoBudget: 1}
	b := Balance{Scope: "b", Budget: Budget{Epsilon: 20, Delta: 1e-5}, RhoBudget: 2}
	for _, c := range []struct {
		name   string
		bal    []Balance
		shared bool
	}{
		{"none", nil, false},
		{"one budget", []Balance{a, {Scope: "c", Budget: a.Budget, RhoBudget: a.RhoBudget}}, true},
		{"two budgets", []Balance{a, b}, false},
	} {
		r := NewLedgerReport("neo4j", nil, c.bal)
		if (r.Budget != nil) != c.shared || r.Scopes == nil || r.Accounting != AccountingCKS20 {
			t.Errorf("%s: budget %v, scopes %v, accounting %q", c.name, r.Budget, r.Scopes, r.Accounting)
		}
	}
}

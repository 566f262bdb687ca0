package config

import (
	"strings"
	"testing"
)

// The command creates the configured ledger (the default file when none
// is set), scope and ledger key, each quoted for a shell, and leaves the
// totals to fill in.
func TestBudgetInitCommand(t *testing.T) {
	isolate(t)
	c := &Config{}
	c.Privacy.Ledger, c.Privacy.Scope = "neo4j", "rooms"
	if got, want := c.BudgetInitCommand(), "graphcloak budget --init --ledger neo4j --scope rooms --epsilon-total E --delta-total D"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	c.Privacy.Ledger, c.Privacy.Scope, c.Privacy.LedgerKeyFile = "", "a b", "/k/ledger key"
	def, _ := c.LedgerName()
	got := c.BudgetInitCommand()
	for _, want := range []string{"--ledger " + def + " ", "--scope 'a b' ", "--ledger-key '/k/ledger key' "} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not contain %q", got, want)
		}
	}
}

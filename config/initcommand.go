package config

import "github.com/graphcloak/graphcloak/internal/shellquote"

// BudgetInitCommand is the command line that creates the configured
// ledger (the default file when none is set) and scope, with the
// configured ledger key: what an operator runs, once, when a job finds
// no budget. The totals are left to fill in.
func (c *Config) BudgetInitCommand() string {
	ledger := c.Privacy.Ledger
	if ledger == "" {
		ledger, _ = c.LedgerName() // the default file
	}
	cmd := "graphcloak budget --init --ledger " + shellquote.Quote(ledger) + " --scope " + shellquote.Quote(c.Privacy.Scope)
	if c.Privacy.LedgerKeyFile != "" {
		cmd += " --ledger-key " + shellquote.Quote(c.Privacy.LedgerKeyFile)
	}
	return cmd + " --epsilon-total E --delta-total D"
}

package main

import (
	"errors"
	"fmt"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/shellquote"
	"github.com/graphcloak/graphcloak/privacy"
)

// initCommand is the budget --init command that creates the configured
// ledger and scope.
func initCommand(cfg *config.Config) string {
	ledger := cfg.Privacy.Ledger
	if ledger == "" {
		ledger, _ = cfg.LedgerName() // the default file
	}
	cmd := "graphcloak budget --init --ledger " + shellquote.Quote(ledger) + " --scope " + shellquote.Quote(cfg.Privacy.Scope)
	if cfg.Privacy.LedgerKeyFile != "" {
		cmd += " --ledger-key " + shellquote.Quote(cfg.Privacy.LedgerKeyFile)
	}
	return cmd + " --epsilon-total E --delta-total D"
}

// withInitHint adds the budget --init command to a missing ledger or scope.
func withInitHint(cfg *config.Config, err error) error {
	if errors.Is(err, privacy.ErrNoLedger) || errors.Is(err, privacy.ErrNoScope) {
		return fmt.Errorf("%w (only the operator creates budgets, once: %s)", err, initCommand(cfg))
	}
	return err
}

// addInitHint is withInitHint on *err, for a deferred call: whatever a
// job returns, a missing ledger or scope gets the command.
func addInitHint(cfg *config.Config, err *error) {
	*err = withInitHint(cfg, *err)
}

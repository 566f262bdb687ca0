package main

import (
	"errors"
	"fmt"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
)

// withInitHint adds the budget --init command that creates the configured
// ledger and scope (config.Config.BudgetInitCommand) to a missing ledger
// or scope.
func withInitHint(cfg *config.Config, err error) error {
	if errors.Is(err, privacy.ErrNoLedger) || errors.Is(err, privacy.ErrNoScope) {
		return fmt.Errorf("%w (only the operator creates budgets, once: %s)", err, cfg.BudgetInitCommand())
	}
	return err
}

// addInitHint is withInitHint on *err, for a deferred call: whatever a
// job returns, a missing ledger or scope gets the command.
func addInitHint(cfg *config.Config, err *error) {
	*err = withInitHint(cfg, *err)
}

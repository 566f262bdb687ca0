package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// initCommand is the budget --init command that creates the configured
// ledger and scope.
func initCommand(cfg *config.Config) string {
	ledger := cfg.Privacy.Ledger
	if ledger == "" {
		ledger, _ = stores.DefaultLedgerPath()
	}
	cmd := "graphcloak budget --init --ledger " + shellQuote(ledger) + " --scope " + shellQuote(cfg.Privacy.Scope)
	if cfg.Privacy.LedgerKeyFile != "" {
		cmd += " --ledger-key " + shellQuote(cfg.Privacy.LedgerKeyFile)
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

// shellQuote quotes s for a POSIX shell when it is not a plain word.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '~' || r == '@' || r == '+' || r == '=' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
)

// The configured ledger, shared by every command that charges or reads it
// (budget, release, serve, locate --private-answer, the operator's page).

// openLedger opens the configured ledger (a file, or Neo4j through
// client). It never creates one: a missing ledger file is an error
// wrapping privacy.ErrNoLedger that names the budget --init command.
func openLedger(ctx context.Context, cfg *config.Config, client *connector.Client) (privacy.Ledger, error) {
	if cfg.Privacy.Ledger == "neo4j" {
		return connector.NewLedger(ctx, client, cfg.Neo4j.Database)
	}
	path, opt, err := fileLedgerConfig(cfg)
	if err != nil {
		return nil, err
	}
	l, err := privacy.OpenFileLedger(path, opt)
	if err != nil {
		return nil, withInitHint(cfg, err)
	}
	return l, nil
}

// readLedger opens the configured ledger as openLedger does, for reading
// only (a dry run): the same errors, but no lock file or Neo4j constraint
// is created, and a charge is refused.
func readLedger(cfg *config.Config, client *connector.Client) (privacy.Ledger, error) {
	if cfg.Privacy.Ledger == "neo4j" {
		return connector.ReadLedger(client, cfg.Neo4j.Database)
	}
	path, opt, err := fileLedgerConfig(cfg)
	if err != nil {
		return nil, err
	}
	opt.ReadOnly = true
	l, err := privacy.OpenFileLedger(path, opt)
	if err != nil {
		return nil, withInitHint(cfg, err)
	}
	return l, nil
}

// fileLedgerConfig returns the file ledger's path and options.
func fileLedgerConfig(cfg *config.Config) (string, privacy.FileLedgerOptions, error) {
	path, err := ledgerPath(cfg)
	if err != nil {
		return "", privacy.FileLedgerOptions{}, err
	}
	opt, err := ledgerOptions(cfg)
	return path, opt, err
}

// ledgerOptions loads the ledger key, when one is configured, and puts
// the file ledger's high-water marks beside it.
func ledgerOptions(cfg *config.Config) (privacy.FileLedgerOptions, error) {
	if cfg.Privacy.LedgerKeyFile == "" {
		return privacy.FileLedgerOptions{}, nil
	}
	k, err := privacy.LoadKey(cfg.Privacy.LedgerKeyFile)
	if err != nil {
		return privacy.FileLedgerOptions{}, inputErrorf("--ledger-key: %w", err)
	}
	opt := privacy.FileLedgerOptions{Key: &k}
	if cfg.Privacy.Ledger != "neo4j" {
		// The high-water marks beside the key detect a rolled-back,
		// deleted or replaced ledger file, whatever path reaches it; a
		// keyed ledger charges nothing where they cannot be written.
		opt.HighWaterMarkDir = filepath.Dir(cfg.Privacy.LedgerKeyFile)
	}
	return opt, nil
}

// initCommand is the budget --init command that creates the configured
// ledger and scope.
func initCommand(cfg *config.Config) string {
	ledger := cfg.Privacy.Ledger
	if ledger == "" {
		ledger, _ = defaultLedgerPath()
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

// ledgerPath is the configured ledger file, or defaultLedgerPath when the
// configuration leaves it empty.
func ledgerPath(cfg *config.Config) (string, error) {
	if cfg.Privacy.Ledger != "" {
		return cfg.Privacy.Ledger, nil
	}
	return defaultLedgerPath()
}

// defaultLedgerPath is $XDG_STATE_HOME/graphcloak/ledger.json, else
// ~/.local/state/graphcloak/ledger.json.
func defaultLedgerPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "graphcloak", "ledger.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", inputErrorf("no ledger file: set --ledger or $XDG_STATE_HOME (%v)", err)
	}
	return filepath.Join(home, ".local", "state", "graphcloak", "ledger.json"), nil
}

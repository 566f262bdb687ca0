package stores

import (
	"context"
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// The configured ledger, shared by every command that charges or reads it
// (budget, release, serve, locate --private-answer, the operator's page).

// openLedger opens the configured ledger (a file, or Neo4j through
// client). It never creates one: a missing ledger file is an error
// wrapping privacy.ErrNoLedger (a missing scope, later, privacy.ErrNoScope),
// to which the command adds how its user creates one.
func openLedger(ctx context.Context, cfg *config.Config, client *connector.Client) (privacy.Ledger, error) {
	if cfg.Privacy.Ledger == "neo4j" {
		return connector.NewLedger(ctx, client, cfg.Neo4j.Database)
	}
	path, opt, err := fileLedgerConfig(cfg)
	if err != nil {
		return nil, err
	}
	return privacy.OpenFileLedger(path, opt)
}

// createLedger creates the configured ledger (a file, or Neo4j through
// client) and its configured scope with budget, or checks that they exist
// with exactly that budget. A file ledger's directory must exist when the
// configuration names the file (a typo must not become a new ledger
// somewhere unexpected); only the default location's is created.
func createLedger(ctx context.Context, cfg *config.Config, client *connector.Client, budget privacy.Budget) (privacy.Ledger, error) {
	scope := cfg.Privacy.Scope
	if cfg.Privacy.Ledger == "neo4j" {
		l, err := connector.NewLedger(ctx, client, cfg.Neo4j.Database)
		if err != nil {
			return nil, err
		}
		return l, l.InitScope(ctx, scope, budget)
	}
	path, opt, err := fileLedgerConfig(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Privacy.Ledger != "" {
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return nil, errkind.Inputf("%s %s: the directory %s does not exist (graphcloak creates no directories; create it first)", ParamLedger, path, filepath.Dir(path))
		}
	}
	return privacy.CreateFileLedger(ctx, path, budget, opt, scope)
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
	return privacy.OpenFileLedger(path, opt)
}

// fileLedgerConfig returns the file ledger's path and options.
func fileLedgerConfig(cfg *config.Config) (string, privacy.FileLedgerOptions, error) {
	path, err := cfg.LedgerFile()
	if err != nil {
		return "", privacy.FileLedgerOptions{}, err
	}
	opt, err := ledgerOptions(cfg)
	return path, opt, err
}

// ledgerOptions are the file ledger's options: the ledger key, when one
// is configured, with the high-water marks beside it.
func ledgerOptions(cfg *config.Config) (privacy.FileLedgerOptions, error) {
	key, err := cfg.LedgerKey()
	if key == nil || err != nil {
		return privacy.FileLedgerOptions{}, err
	}
	opt := privacy.FileLedgerOptions{Key: key}
	if cfg.Privacy.Ledger != "neo4j" {
		// The high-water marks beside the key detect a rolled-back,
		// deleted or replaced ledger file, whatever path reaches it; a
		// keyed ledger charges nothing where they cannot be written.
		opt.HighWaterMarkDir = filepath.Dir(cfg.Privacy.LedgerKeyFile)
	}
	return opt, nil
}

// ScopeBalance reads the configured scope's balance from the configured
// ledger, read-only (through the stores' connection for a ledger kept in
// Neo4j).
func (s *Stores) ScopeBalance(ctx context.Context) (*privacy.Balance, error) {
	cfg := &s.cfg.Config
	if err := privacy.CheckName("scope", cfg.Privacy.Scope); err != nil {
		return nil, errkind.Inputf("%s: %w", job.ParamScope, err)
	}
	if cfg.Privacy.Ledger == "neo4j" && s.Client == nil {
		return nil, errNotConnected
	}
	l, err := readLedger(cfg, s.Client)
	if err != nil {
		return nil, err
	}
	bal, err := l.Balance(ctx, cfg.Privacy.Scope)
	if err != nil {
		return nil, err
	}
	if len(bal) != 1 {
		return nil, errkind.Inputf("%s %s: the ledger has no such scope", job.ParamScope, cfg.Privacy.Scope)
	}
	return &bal[0], nil
}

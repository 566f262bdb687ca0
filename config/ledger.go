package config

import (
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// paramLedger is the ledger setting (privacy.ledger), as errors name it.
const paramLedger errkind.Param = "ledger"

// LedgerName names the configured ledger as a report shows it: neo4j for
// a ledger kept in Neo4j, else its file (LedgerFile).
func (c *Config) LedgerName() (string, error) {
	if c.Privacy.Ledger == "neo4j" {
		return "neo4j", nil
	}
	return c.LedgerFile()
}

// LedgerFile is the configured ledger file, or, when the configuration
// names none, $XDG_STATE_HOME/graphcloak/ledger.json, else
// ~/.local/state/graphcloak/ledger.json (one per user).
func (c *Config) LedgerFile() (string, error) {
	if c.Privacy.Ledger != "" {
		return c.Privacy.Ledger, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "graphcloak", "ledger.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errkind.Inputf("no ledger file: set %s or $XDG_STATE_HOME (%s)", paramLedger, err.Error())
	}
	return filepath.Join(home, ".local", "state", "graphcloak", "ledger.json"), nil
}

// LedgerKey loads the configured ledger key (nil when none is
// configured); a key file that cannot be read is bad input naming the
// ledger key. It keys a file ledger's hash chain and seals certificates.
func (c *Config) LedgerKey() (*privacy.Key, error) {
	if c.Privacy.LedgerKeyFile == "" {
		return nil, nil
	}
	k, err := privacy.LoadKey(c.Privacy.LedgerKeyFile)
	if err != nil {
		return nil, errkind.Inputf("%s: %w", privacy.ParamLedgerKey, err)
	}
	return &k, nil
}

package stores

import (
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

// TestLedgerName: a Neo4j ledger is named neo4j, a file ledger by its
// path.
func TestLedgerName(t *testing.T) {
	for ledger, want := range map[string]string{"neo4j": "neo4j", "/tmp/l.json": "/tmp/l.json"} {
		cfg := &config.Config{}
		cfg.Privacy.Ledger = ledger
		if got, err := LedgerName(cfg); err != nil || got != want {
			t.Errorf("ledger %q: %q, %v; want %q", ledger, got, err, want)
		}
	}
}

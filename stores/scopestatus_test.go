package stores

import (
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
)

// With Neo4j unreachable, the status says so in place of the budget and
// of the runs, and holds neither.
func TestReadScopeStatusUnreachable(t *testing.T) {
	cfg := &config.Config{}
	cfg.Neo4j.URI = "bolt://127.0.0.1:1" // nothing listens on port 1
	cfg.Neo4j.ConnectTimeout = 2
	cfg.Privacy.Scope, cfg.Privacy.Ledger = "whisper", "neo4j"
	s := ReadScopeStatus(t.Context(), cfg, 10, time.Now())
	if s.LedgerErr == nil || s.RunsErr == nil || errkind.Of(s.LedgerErr) != errkind.Unreachable || s.BalanceErr != nil {
		t.Errorf("errors: ledger %v, balance %v, runs %v", s.LedgerErr, s.BalanceErr, s.RunsErr)
	}
	if s.Balance != nil || s.Runs != nil {
		t.Errorf("read something from nowhere: %+v", s)
	}
}

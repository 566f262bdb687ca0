package stores

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
)

// A status and a health check read through the stores' connection and
// open none of their own: through stores opened without Neo4j (the
// configuration naming an address nothing listens on), they say why in
// place of the budget and of the runs, hold neither, and no driver is
// opened however often they are read (connector.DriversOpened; the old
// status connected at every read).
func TestScopeStatusOpensNoDriver(t *testing.T) {
	cfg := &config.Loaded{}
	cfg.Neo4j.URI = "bolt://127.0.0.1:1" // nothing listens on port 1
	cfg.Neo4j.ConnectTimeout = 2
	cfg.Privacy.Scope, cfg.Privacy.Ledger = "whisper", "neo4j"
	s, err := Open(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := connector.DriversOpened()
	for range 3 {
		st := s.ScopeStatus(t.Context(), 10, time.Now())
		if !errors.Is(st.LedgerErr, errNotConnected) || !errors.Is(st.RunsErr, errNotConnected) || st.BalanceErr != nil {
			t.Errorf("errors: ledger %v, balance %v, runs %v", st.LedgerErr, st.BalanceErr, st.RunsErr)
		}
		if st.Balance != nil || st.Runs != nil {
			t.Errorf("read something from nowhere: %+v", st)
		}
		if err := s.Ping(t.Context()); !errors.Is(err, errNotConnected) {
			t.Errorf("ping: %v", err)
		}
	}
	if n := connector.DriversOpened() - before; n != 0 {
		t.Errorf("%d drivers opened by 3 statuses and pings, want 0", n)
	}

	// A file ledger is read without Neo4j: a missing one says so.
	cfg.Privacy.Ledger = filepath.Join(t.TempDir(), "ledger.json")
	st := s.ScopeStatus(t.Context(), 10, time.Now())
	if !errors.Is(st.LedgerErr, privacy.ErrNoLedger) || !errors.Is(st.RunsErr, errNotConnected) {
		t.Errorf("file ledger: ledger %v, runs %v", st.LedgerErr, st.RunsErr)
	}
}

package stores

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// ScopeStatus is the configured scope's budget and its last runs, read
// afresh, or why each could not be read: a status page shows what it can.
type ScopeStatus struct {
	// Balance is the scope's balance (nil: no release charged to it yet).
	Balance *privacy.Balance
	// LedgerErr is why the ledger could not be opened (or Neo4j not
	// reached), BalanceErr why the open ledger could not be read.
	LedgerErr, BalanceErr error
	// Runs are the scope's last runs as rows at the time read, newest
	// first; RunsErr is why they could not be listed.
	Runs    []job.RunRow
	RunsErr error
}

// ScopeStatus reads the configured scope's balance from the configured
// ledger (openLedger, through the stores' connection) and lists its last
// limit runs as rows at now: no connection of its own, so a status page
// read at every request keeps the process's one driver.
func (s *Stores) ScopeStatus(ctx context.Context, limit int, now time.Time) ScopeStatus {
	var st ScopeStatus
	cfg := &s.cfg.Config
	if s.Client == nil && cfg.Privacy.Ledger == "neo4j" {
		st.LedgerErr, st.RunsErr = errNotConnected, errNotConnected
		return st
	}
	if l, err := openLedger(ctx, cfg, s.Client); err != nil {
		st.LedgerErr = err
	} else if bal, err := l.Balance(ctx, cfg.Privacy.Scope); err != nil {
		st.BalanceErr = err
	} else if len(bal) > 0 {
		st.Balance = &bal[0]
	}
	if s.Client == nil {
		st.RunsErr = errNotConnected
		return st
	}
	recs, err := s.Client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, limit)
	if err != nil {
		st.RunsErr = err
		return st
	}
	for _, rec := range recs {
		st.Runs = append(st.Runs, job.RunRowOf(rec, now))
	}
	return st
}

// Ping reads from the configured database through the stores' connection
// (a health check: no connection of its own).
func (s *Stores) Ping(ctx context.Context) error {
	if s.Client == nil {
		return errNotConnected
	}
	return s.Client.Ping(ctx, s.cfg.Neo4j.Database)
}

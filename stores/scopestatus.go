package stores

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/config"
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

// ReadScopeStatus connects to the configured database, reads the scope's
// balance from the configured ledger (OpenLedger) and lists its last
// limit runs as rows at now.
func ReadScopeStatus(ctx context.Context, cfg *config.Config, limit int, now time.Time) ScopeStatus {
	var s ScopeStatus
	client, err := Connect(ctx, cfg)
	if err != nil {
		s.LedgerErr, s.RunsErr = err, err
		return s
	}
	defer client.Close(context.WithoutCancel(ctx))
	if l, err := OpenLedger(ctx, cfg, client); err != nil {
		s.LedgerErr = err
	} else if bal, err := l.Balance(ctx, cfg.Privacy.Scope); err != nil {
		s.BalanceErr = err
	} else if len(bal) > 0 {
		s.Balance = &bal[0]
	}
	recs, err := client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, limit)
	if err != nil {
		s.RunsErr = err
		return s
	}
	for _, rec := range recs {
		s.Runs = append(s.Runs, job.RunRowOf(rec, now))
	}
	return s
}

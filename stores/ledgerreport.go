package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/privacy"
)

// LedgerReport opens the configured ledger (OpenLedger; client is the
// stores' connection for a ledger in Neo4j) — or, given a budget (create), creates
// it and the configured scope with that budget, or checks that they exist
// with exactly it (createLedger) — and reports the balance of scope ("":
// every scope) under the ledger's name (neo4j, or its file's path).
func (s *Stores) LedgerReport(ctx context.Context, create *privacy.Budget, scope string) (privacy.LedgerReport, error) {
	cfg, client := &s.cfg.Config, s.Client
	var l privacy.Ledger
	var err error
	if create != nil {
		l, err = createLedger(ctx, cfg, client, *create)
	} else {
		l, err = openLedger(ctx, cfg, client)
	}
	if err != nil {
		return privacy.LedgerReport{}, err
	}
	bal, err := l.Balance(ctx, scope)
	if err != nil {
		return privacy.LedgerReport{}, err
	}
	name, err := cfg.LedgerName()
	if err != nil {
		return privacy.LedgerReport{}, err
	}
	return privacy.NewLedgerReport(name, l, bal), nil
}

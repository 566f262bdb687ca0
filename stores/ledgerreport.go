package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
)

// LedgerReport opens the configured ledger (OpenLedger; client is the
// connection of a ledger in Neo4j) — or, given a budget (create), creates
// it and the configured scope with that budget, or checks that they exist
// with exactly it (CreateLedger) — and reports the balance of scope ("":
// every scope) under the ledger's name (neo4j, or its file's path).
func LedgerReport(ctx context.Context, cfg *config.Config, client *connector.Client, create *privacy.Budget, scope string) (privacy.LedgerReport, error) {
	var l privacy.Ledger
	var err error
	if create != nil {
		l, err = CreateLedger(ctx, cfg, client, *create)
	} else {
		l, err = OpenLedger(ctx, cfg, client)
	}
	if err != nil {
		return privacy.LedgerReport{}, err
	}
	bal, err := l.Balance(ctx, scope)
	if err != nil {
		return privacy.LedgerReport{}, err
	}
	name := cfg.Privacy.Ledger
	if name != "neo4j" {
		if name, err = LedgerPath(cfg); err != nil {
			return privacy.LedgerReport{}, err
		}
	}
	return privacy.NewLedgerReport(name, l, bal), nil
}

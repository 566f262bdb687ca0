package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
)

// LedgerReport is the report of ledger l, opened from cfg: the balance of
// scope ("": every scope) under the ledger's name (neo4j, or its file's
// path).
func LedgerReport(ctx context.Context, cfg *config.Config, l privacy.Ledger, scope string) (privacy.LedgerReport, error) {
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

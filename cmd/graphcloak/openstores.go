package main

import (
	"context"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// openStores opens what a job runs against (stores.Open) with
// storesOptions; a missing ledger or scope is refused with the budget
// --init command to run.
func openStores(ctx context.Context, g *globalOptions, after *job.Bookkeeping, opt stores.Options) (*stores.Stores, error) {
	s, err := stores.Open(ctx, g.cfg, storesOptions(g, after, opt))
	if err != nil {
		return nil, withInitHint(&g.cfg.Config, err)
	}
	return s, nil
}

// storesOptions are opt with the command's logger, pull progress and
// bookkeeping deadline. A job that charges the ledger warns that
// --epsilon-total/--delta-total are ignored (budgets are set once, by
// budget --init).
func storesOptions(g *globalOptions, after *job.Bookkeeping, opt stores.Options) stores.Options {
	if opt.Ledger != stores.NoLedger && (g.cfg.Sources["privacy.epsilonTotal"] == config.FromFlag || g.cfg.Sources["privacy.deltaTotal"] == config.FromFlag) {
		g.logger.Warn("--epsilon-total/--delta-total are ignored by release: budgets are set once, by budget --init")
	}
	opt.Logger, opt.Pull, opt.Bookkeeping, opt.Merged = g.logger, g.pullProgress, after.Context, g.sayMerges
	return opt
}

// ledgerMode is the ledger a job opens: read-only for a dry run.
func ledgerMode(dryRun bool) stores.LedgerMode {
	if dryRun {
		return stores.ReadOnly
	}
	return stores.ReadWrite
}

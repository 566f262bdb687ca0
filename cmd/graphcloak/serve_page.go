package main

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/config"

	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
)

// newOperatorPage makes serve's operator page (service.Page) of the
// configured scope, read through st (the process's one Neo4j driver);
// Close removes its pictures.
func newOperatorPage(opts *serveOptions, steps *progressbar.Running, st *stores.Stores) (*service.Page, error) {
	cfg := opts.g.cfg.Config // a copy: nothing here changes the server's
	return service.NewPage(service.PageOptions{Scope: cfg.Privacy.Scope, Ledger: cfg.Privacy.Ledger, Schedule: opts.schedule,
		Graph: cfg.Projection.Pattern(), PrivateAnswer: opts.privateAnswer, Steps: steps,
		Status: func(ctx context.Context, now time.Time) service.PageStatus { return pageStatus(ctx, st, &cfg, now) }})
}

// pageStatus is the scope's budget and its last ten runs for the page
// (stores.Stores.ScopeStatus), read at each request: what cannot be read
// says why in its place, a missing ledger or scope with the budget --init
// command to run.
func pageStatus(ctx context.Context, st *stores.Stores, cfg *config.Config, now time.Time) service.PageStatus {
	ss := st.ScopeStatus(ctx, 10, now)
	s := service.PageStatus{Balance: ss.Balance, Runs: ss.Runs}
	if ss.LedgerErr != nil {
		s.BudgetError = withInitHint(cfg, ss.LedgerErr).Error()
	} else if ss.BalanceErr != nil {
		s.BudgetError = ss.BalanceErr.Error()
	}
	if ss.RunsErr != nil {
		s.RunsError = ss.RunsErr.Error()
	}
	return s
}

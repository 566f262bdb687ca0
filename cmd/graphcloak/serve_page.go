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
// configured scope; Close removes its pictures.
func newOperatorPage(opts *serveOptions, steps *progressbar.Running) (*service.Page, error) {
	cfg := opts.g.cfg.Config // a copy: nothing here changes the server's
	return service.NewPage(service.PageOptions{Scope: cfg.Privacy.Scope, Ledger: cfg.Privacy.Ledger, Schedule: opts.schedule,
		Graph: cfg.Projection.Pattern(), PrivateAnswer: opts.privateAnswer, Steps: steps,
		Status: func(ctx context.Context, now time.Time) service.PageStatus { return pageStatus(ctx, &cfg, now) }})
}

// pageStatus is the scope's budget and its last ten runs for the page
// (stores.ReadScopeStatus), read at each request: what cannot be read
// says why in its place, a missing ledger or scope with the budget --init
// command to run.
func pageStatus(ctx context.Context, cfg *config.Config, now time.Time) service.PageStatus {
	st := stores.ReadScopeStatus(ctx, cfg, 10, now)
	s := service.PageStatus{Balance: st.Balance, Runs: st.Runs}
	if st.LedgerErr != nil {
		s.BudgetError = withInitHint(cfg, st.LedgerErr).Error()
	} else if st.BalanceErr != nil {
		s.BudgetError = st.BalanceErr.Error()
	}
	if st.RunsErr != nil {
		s.RunsError = st.RunsErr.Error()
	}
	return s
}

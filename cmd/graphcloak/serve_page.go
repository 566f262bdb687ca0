package main

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
)

// newOperatorPage makes serve's operator page (service.Page) of the
// configured scope; Close removes its pictures.
func newOperatorPage(opts *serveOptions) (*service.Page, error) {
	cfg := opts.g.cfg.Config // a copy: nothing here changes the server's
	return service.NewPage(service.PageOptions{Scope: cfg.Privacy.Scope, Ledger: cfg.Privacy.Ledger, Schedule: opts.schedule,
		Graph: cfg.Projection.Pattern(), PrivateAnswer: opts.privateAnswer,
		Status: func(ctx context.Context, now time.Time) service.PageStatus { return pageStatus(ctx, &cfg, now) }})
}

// pageStatus reads the scope's budget and its last ten runs for the page,
// connecting at each request: what cannot be read says why in its place.
func pageStatus(ctx context.Context, cfg *config.Config, now time.Time) service.PageStatus {
	var s service.PageStatus
	client, err := stores.Connect(ctx, cfg)
	if err != nil {
		s.BudgetError, s.RunsError = err.Error(), err.Error()
		return s
	}
	defer client.Close(context.WithoutCancel(ctx))
	if l, err := stores.OpenLedger(ctx, cfg, client); err != nil {
		s.BudgetError = withInitHint(cfg, err).Error()
	} else if bal, err := l.Balance(ctx, cfg.Privacy.Scope); err != nil {
		s.BudgetError = err.Error()
	} else if len(bal) > 0 {
		s.Balance = &bal[0]
	}
	if recs, err := client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, 10); err != nil {
		s.RunsError = err.Error()
	} else {
		for _, rec := range recs {
			s.Runs = append(s.Runs, runRowOf(rec, now))
		}
	}
	return s
}

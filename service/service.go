// Package service runs graphcloak's scheduled job as a long-lived
// process: /metrics and /healthz on a listener, the scheduler until the
// context ends, and a shutdown in a fixed order. /healthz answers 503 while
// the service cannot work (Health: the database unreachable, the last
// slots failed, the reasons in the body) and the moment shutdown begins (before the current run is given its grace,
// before the listener closes), so a load balancer or orchestrator stops
// sending work while the run finishes. A slot's steps (Steps) are planned
// and executed from their specs against stores opened once for the life
// of the service. A local release is served the same way: Epochs opens an
// epoch on the stores at every slot and collects it, Collector collects
// one epoch's order; both serve the collector's /epoch/ endpoints.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/schedule"
)

// Service is one scheduled job with its metrics (no job when Runner is
// nil: the listener's routes are the service). Listener, when not nil,
// serves Metrics' /metrics and /healthz, and Page (when not nil) at "/";
// Run closes it.
type Service struct {
	Runner   *schedule.Runner
	Metrics  *metrics.Metrics
	Listener net.Listener
	Page     http.Handler
	Logger   *slog.Logger
	// Health, when not nil, is told how every slot ended and makes
	// /healthz answer 503 with its reasons while the service cannot work
	// (the database unreachable, the last slots failed).
	Health *Health
	// Routes, when not nil, registers more routes on the listener's mux
	// (a collector's /epoch/ endpoints).
	Routes func(mux *http.ServeMux)
}

// Run serves the metrics and fires run at every slot until ctx ends (or
// the runner's MaxRuns), then shuts down: /healthz turns 503 first, the
// current run gets the runner's grace, and the listener closes last. When
// the listener fails, the service shuts down the same way and Run returns
// the listener's error (joined with the shutdown's).
func (s *Service) Run(ctx context.Context, run schedule.SlotFunc) error {
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var srv *http.Server
	listenErr := make(chan error, 1)
	if s.Listener != nil {
		m := s.Metrics.Handler()
		mux := http.NewServeMux()
		if s.Page != nil {
			mux.Handle("GET /{$}", s.Page)
		}
		if s.Health != nil {
			mux.Handle("GET /healthz", healthHandler(s.Health, m))
		}
		if s.Routes != nil {
			s.Routes(mux)
		}
		mux.Handle("/", m)
		var h http.Handler = mux
		// Deadlines free a connection in bounded time (a collector's report
		// batches set their own, shorter, body deadline); ConnContext lets a
		// collector vouch for a connection whose report verified
		// (local.LimitListener).
		srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 2 * time.Minute, IdleTimeout: 30 * time.Second,
			ConnContext: local.ConnContext}
		go func() {
			if err := srv.Serve(s.Listener); !errors.Is(err, http.ErrServerClosed) {
				log.Error("the listener failed: shutting down", "error", err)
				listenErr <- fmt.Errorf("listener %s: %w", s.Listener.Addr(), err)
				stop()
			}
		}()
		log.Info("serving /metrics and /healthz", "listen", s.Listener.Addr().String())
	}
	// Shutdown begins when ctx ends: unhealthy at once, not after the run.
	stopWatching := context.AfterFunc(ctx, s.Metrics.Stopping)
	defer stopWatching()
	if s.Health != nil {
		inner := run
		run = func(ctx context.Context, slot time.Time) error {
			err := inner(ctx, slot)
			s.Health.SlotEnded(err)
			return err
		}
	}
	if s.Runner != nil {
		s.Runner.Run(ctx, run)
	} else {
		<-ctx.Done() // no schedule (a collector): serve until shutdown
	}
	s.Metrics.Stopping()
	log.Info("scheduler stopped")
	if srv == nil {
		return nil
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	select {
	case lerr := <-listenErr:
		return errors.Join(lerr, err)
	default:
		return err
	}
}

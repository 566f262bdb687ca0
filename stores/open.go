package stores

import (
	"context"
	"log/slog"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// LedgerMode is how Open opens the configured ledger.
type LedgerMode int

const (
	// NoLedger opens none.
	NoLedger LedgerMode = iota
	// ReadOnly opens it for reading (a dry run): the same checks and
	// errors as ReadWrite, nothing created or charged.
	ReadOnly
	// ReadWrite opens it to be charged.
	ReadWrite
)

// Options say what Open opens.
type Options struct {
	// Neo4j connects to the configured database (the graph, the ledger or
	// the run records live there).
	Neo4j bool
	// CheckProjection validates the configured projection before
	// connecting, so that a bad name is refused without a connection;
	// with CommunityProperty, the property a graph's communities are read
	// from too.
	CheckProjection   bool
	CommunityProperty string
	// ReleaseRun names a release run (a run id, or "latest": the scope's
	// newest succeeded release) whose record is read once connected: its
	// projection is taken unless the configuration names one, and it is
	// checked to be a succeeded release whose values are still in the
	// database (Stores.Release).
	ReleaseRun string
	// Ledger opens the configured ledger and checks that the configured
	// scope has a budget (NoLedger: none).
	Ledger LedgerMode
	// Logger gets what opening and loading say (nil: nothing).
	Logger *slog.Logger
	// Pull returns the progress callback of a graph's pull and what ends
	// it (nil: none).
	Pull func() (progress func(stage string, done int), end func())
	// Merged is told, when a graph is loaded, how the pairs its input
	// gave more than once were merged and how many self-loops it skipped
	// (only when it did either; nil: the logger's info).
	Merged func(spec string, m laplacian.Merges)
	// Bookkeeping is the context of closing the connection when Open
	// fails after connecting (nil: ctx without its cancellation).
	Bookkeeping func() context.Context
}

// Stores are what a job runs against, opened once: the Neo4j connection,
// the resolved projection, the ledger and the release run read.
type Stores struct {
	// Client is the Neo4j connection (nil: not connected).
	Client *connector.Client
	// Projection is the projection read and written: the configured one,
	// or the release run's when the configuration names none.
	Projection connector.Projection
	// Ledger is the configured ledger (nil: not opened).
	Ledger privacy.Ledger
	// Release is the release run's record (Options.ReleaseRun; nil:
	// none) and ReleaseDigest the digest of its values ("": none
	// recorded, or a record without release metadata).
	Release       *connector.RunRecord
	ReleaseDigest string

	cfg    *config.Loaded
	logger *slog.Logger
	pull   func() (func(stage string, done int), func())
	merged func(spec string, m laplacian.Merges)
}

// Open opens what a job runs against from a validated configuration, in
// this order: the projection checked (CheckProjection), Neo4j connected,
// the release run read (its projection adopted), the ledger opened and
// the scope's budget checked. On an error nothing stays open.
func Open(ctx context.Context, cfg *config.Loaded, opt Options) (*Stores, error) {
	s := &Stores{Projection: cfg.Neo4jProjection(), cfg: cfg, logger: opt.Logger, pull: opt.Pull, merged: opt.Merged}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if opt.CheckProjection {
		p := s.Projection
		p.CommunityProperty = opt.CommunityProperty
		if err := p.Validate(); err != nil {
			return nil, err
		}
	}
	if opt.Neo4j {
		c, err := connect(ctx, &cfg.Config, s.logger)
		if err != nil {
			return nil, err
		}
		s.Client = c
	}
	err := s.open(ctx, opt)
	if err != nil {
		s.Close(opt.bookkeeping(ctx))
		return nil, err
	}
	return s, nil
}

// bookkeeping is the context of closing what was opened: Bookkeeping's,
// or ctx without its cancellation.
func (opt Options) bookkeeping(ctx context.Context) context.Context {
	if opt.Bookkeeping != nil {
		return opt.Bookkeeping()
	}
	return context.WithoutCancel(ctx)
}

// open reads the release run and opens the ledger once connected.
func (s *Stores) open(ctx context.Context, opt Options) error {
	if opt.ReleaseRun != "" {
		id := opt.ReleaseRun
		if id == "latest" {
			var err error
			if id, err = s.latestRelease(ctx); err != nil {
				return err
			}
		}
		if err := s.ReadRelease(ctx, id); err != nil {
			return err
		}
	}
	if opt.Ledger == NoLedger {
		return nil
	}
	cfg := &s.cfg.Config
	var err error
	if opt.Ledger == ReadOnly {
		s.Ledger, err = readLedger(cfg, s.Client)
	} else {
		s.Ledger, err = openLedger(ctx, cfg, s.Client)
	}
	if err != nil {
		return err
	}
	_, err = s.Ledger.Balance(ctx, cfg.Privacy.Scope)
	return err
}

// WithLogger returns a view of s that logs to logger: the same
// connection, ledger and projection. Close s, never a view.
func (s *Stores) WithLogger(logger *slog.Logger) *Stores {
	v := *s
	v.logger = logger
	return &v
}

// WithRelease returns a view of s (as WithLogger) that has read the
// record of release runID (ReadRelease): its Release, ReleaseDigest and
// the projection it adopted are the view's alone.
func (s *Stores) WithRelease(ctx context.Context, runID string) (*Stores, error) {
	v := *s
	if err := v.ReadRelease(ctx, runID); err != nil {
		return nil, err
	}
	return &v, nil
}

// Close closes the Neo4j connection (nothing else holds a resource).
func (s *Stores) Close(ctx context.Context) {
	if s != nil && s.Client != nil {
		s.Client.Close(ctx)
		s.Client = nil
	}
}

// Backend is the job backend of a release, a localisation or a private
// answer on the projection (nil when not connected).
func (s *Stores) Backend() *Neo4j {
	if s.Client == nil {
		return nil
	}
	cfg := &s.cfg.Config
	return &Neo4j{Client: s.Client, Database: cfg.Neo4j.Database, Projection: s.Projection,
		Write: connector.WriteOptions{BatchSize: cfg.Write.BatchSize, Concurrency: cfg.Write.Concurrency}}
}

// Env is env with the stores' ledger (when opened) and, when publish is
// set, the Neo4j backend.
func (s *Stores) Env(env job.Env, publish bool) job.Env {
	if s.Ledger != nil {
		env.Ledger = s.Ledger
	}
	if publish {
		env.Backend = s.Backend()
	}
	return env
}

// LoadGraph loads the graph named by spec: Neo4jSpec reads the stores'
// projection (opt.Projection: another, a release run's) through their
// connection (an error when they were opened without Neo4j), its names
// checked first; anything else is a generator or file:PATH
// (laplacian.Generate) or gt:NAME (a fetched dataset), read without a
// connection. The pull reports to the stores' progress and logger unless
// opt names its own.
func (s *Stores) LoadGraph(ctx context.Context, spec string, opt LoadOptions) (*Graph, error) {
	if opt.Projection == nil {
		p := s.Projection
		opt.Projection = &p
	}
	if opt.Logger == nil {
		opt.Logger = s.logger
	}
	end := func() {}
	if s.pull != nil && opt.Progress == nil {
		opt.Progress, end = s.pull()
	}
	lg, err := loadGraph(ctx, &s.cfg.Config, s.Client, spec, opt)
	end()
	if err == nil {
		s.sayMerges(spec, lg.Graph.Merges())
	}
	return lg, err
}

// sayMerges tells Options.Merged (else the logger) how the input's
// repeated pairs were merged and its self-loops skipped, when any were:
// a graph is never changed silently.
func (s *Stores) sayMerges(spec string, m laplacian.Merges) {
	switch {
	case !m.Changed():
		return
	case s.merged != nil:
		s.merged(spec, m)
		return
	}
	if m.Merged > 0 {
		s.logger.Info("graph: repeated pairs merged", "graph", spec, "rows", m.Rows, "pairsRepeated", m.Pairs, "rowsMerged", m.Merged, "duplicateEdges", m.Rule)
	}
	if m.SelfLoops > 0 {
		s.logger.Warn("graph: self-loops skipped", "graph", spec, "selfLoopsSkipped", m.SelfLoops, "example", m.SelfLoopKey)
	}
}

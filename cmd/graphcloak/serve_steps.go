package main

import (
	"context"
	"io"
	"sync"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
)

// newSlot is serve's slot (service.Slot): each step is the command's
// wiring of its job/ path with serve's flags — the release, the
// localisation, the private answer — under the step's epoch and run id.
func newSlot(opts *serveOptions, spec schedule.Spec, m *metrics.Metrics) *service.Slot {
	s := &service.Slot{Epoch: spec.Epoch, NewRunID: stores.NewRunID, Logger: opts.g.logger, Metrics: m,
		Scope: opts.g.cfg.Privacy.Scope, ErrorAttrs: exitCodeAttr}
	if opts.privateAnswer {
		s.Answer = func(ctx context.Context, st service.Step) (*job.AnswerSummary, error) {
			sum, err := answerOnce(ctx, answerOptionsFor(opts, opts.g.forStep(st), st))
			opts.page.answered(st.Epoch, st.RunID, sum, err)
			return sum, err
		}
		return s
	}
	s.Release = func(ctx context.Context, st service.Step) (*job.ReleaseSummary, error) {
		return releaseOnce(ctx, releaseOptionsFor(opts, opts.g.forStep(st), st))
	}
	s.LastRelease = func(ctx context.Context, st service.Step) (string, error) {
		return lastRelease(ctx, opts.g.forStep(st))
	}
	if !opts.noLocate {
		s.Locate = func(ctx context.Context, st service.Step, releaseRun string) (*job.LocateSummary, error) {
			sum, _, err := locateOnce(ctx, locateOptionsFor(opts, opts.g.forStep(st), releaseRun, st.RunID), io.Discard)
			if err == nil {
				opts.page.located(st.Epoch, releaseRun, sum)
			}
			return sum, err
		}
	}
	return s
}

// checkServe checks the schedule and the job's flags before anything
// runs: the release of a slot is validated as it will be made (its values
// file and key read), so a bad flag fails now, not at the first slot.
func checkServe(opts *serveOptions) (schedule.Spec, error) {
	cfg := &opts.g.cfg.Config
	switch {
	case opts.graph != stores.Neo4jSpec:
		return schedule.Spec{}, usageErrorf("serve needs --graph neo4j (runs, leases and history live in Neo4j), got %q", opts.graph)
	case opts.schedule == "":
		return schedule.Spec{}, usageErrorf(`--schedule is required (e.g. "@every 1h" or "0 * * * *")`)
	case cfg.Privacy.Epoch != "":
		return schedule.Spec{}, usageErrorf("--epoch is not used by serve: each slot's epoch is its start time")
	case opts.values == "-":
		return schedule.Spec{}, usageErrorf("--values - cannot be re-read at every slot: give a file")
	case opts.maxRuns < 0:
		return schedule.Spec{}, inputErrorf("--max-runs must be ≥ 0, got %d", opts.maxRuns)
	case opts.jitter < 0 || opts.grace < 0:
		return schedule.Spec{}, inputErrorf("--jitter and --grace must be ≥ 0")
	}
	spec, err := schedule.Parse(opts.schedule)
	if err != nil {
		return schedule.Spec{}, inputErrorf("--schedule: %w", err)
	}
	check := service.Step{Epoch: "check", Logger: opts.g.logger}
	if opts.privateAnswer {
		_, err := checkPrivateAnswer(answerOptionsFor(opts, opts.g, check))
		return spec, err
	}
	if _, err := checkRelease(releaseOptionsFor(opts, opts.g, check)); err != nil {
		return schedule.Spec{}, err
	}
	if !opts.noLocate {
		if _, err := checkLocate(locateOptionsFor(opts, opts.g, "check", "")); err != nil {
			return schedule.Spec{}, err
		}
	}
	return spec, nil
}

// lastRelease returns the run id of the scope's newest succeeded release,
// or "" (logged) when there is none.
func lastRelease(ctx context.Context, g *globalOptions) (string, error) {
	st, err := stores.Open(ctx, g.cfg, stores.Options{Neo4j: true, Logger: g.logger})
	if err != nil {
		return "", err
	}
	defer st.Close(context.WithoutCancel(ctx))
	return st.LastRelease(ctx)
}

// forStep returns g for one step of a slot: the step's logger, which
// names the run (the configuration is shared, read only).
func (g *globalOptions) forStep(st service.Step) *globalOptions {
	c := *g
	c.logger = st.Logger
	return &c
}

func releaseOptionsFor(opts *serveOptions, g *globalOptions, st service.Step) *releaseOptions {
	return &releaseOptions{g: g, graph: stores.Neo4jSpec, values: opts.values, lease: opts.lease, wait: opts.wait,
		sensitivityCache: opts.sensitivityCache, runID: st.RunID, epoch: st.Epoch, forecastTrials: opts.forecastTrials, sourceMass: opts.sourceMass}
}

func answerOptionsFor(opts *serveOptions, g *globalOptions, st service.Step) *locateOptions {
	return &locateOptions{g: g, graph: stores.Neo4jSpec, communities: opts.communities, resolution: opts.resolution, runID: st.RunID, epoch: st.Epoch, communityCache: opts.cache,
		privateAnswer: answerOptions{enabled: true, values: opts.values, cap: opts.answerCap,
			fitTolerance: opts.fitTolerance, onMismatch: opts.onMismatch, cache: opts.answerCache, memo: &opts.cache.Answers}}
}

func locateOptionsFor(opts *serveOptions, g *globalOptions, releaseRun, runID string) *locateOptions {
	lo := &locateOptions{g: g, graph: stores.Neo4jSpec, releaseRun: releaseRun, communities: opts.communities,
		resolution: opts.resolution, runID: runID, plotValue: "posterior", communityCache: opts.cache, forecastTrials: opts.forecastTrials,
		sourceMass: opts.sourceMass}
	if opts.page != nil {
		lo.plot = opts.page.picturePath(runID) // the operator's page shows it
	}
	return lo
}

// serveHealth is /healthz's verdict (service.Health): the database probed
// by databaseProbe, --health-failed-slots (0: never) failed slots in a
// row. close releases the probe's connection.
func serveHealth(opts *serveOptions) (*service.Health, func()) {
	probe := &databaseProbe{g: opts.g}
	failed := opts.healthFailedSlots
	if failed == 0 {
		failed = -1 // never
	}
	return &service.Health{FailedSlots: failed, Probe: probe.ping}, probe.close
}

// databaseProbe is /healthz's check of the database: one client, kept
// between checks (connected again after a failure to connect), and a read.
type databaseProbe struct {
	g      *globalOptions
	mu     sync.Mutex
	client *connector.Client
}

func (p *databaseProbe) ping(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil {
		c, err := stores.Connect(ctx, &p.g.cfg.Config)
		if err != nil {
			return err
		}
		p.client = c
	}
	return p.client.Ping(ctx, p.g.cfg.Neo4j.Database)
}

func (p *databaseProbe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil {
		_ = p.client.Close(context.Background())
		p.client = nil
	}
}

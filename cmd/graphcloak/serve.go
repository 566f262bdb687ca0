package main

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/service"
	"github.com/spf13/cobra"
)

// serveOptions are serve's own flags; the rest are the configuration keys
// that release and locate read.
type serveOptions struct {
	g        *globalOptions
	graph    string
	schedule string
	jitter   time.Duration
	grace    time.Duration
	listen   string
	maxRuns  int
	// What each slot runs: release of values (or value-property) to the
	// write property, then locate on that release.
	values           string
	sensitivityCache string
	communities      string
	resolution       float64
	lease, wait      time.Duration
	noLocate         bool
	// privateAnswer: each slot publishes only the source community
	// (locate --private-answer) instead of a release and a localisation.
	privateAnswer bool
	answerCap     int
	// cache keeps each scope's Leiden partition between slots.
	cache *communityCache
	// page is the operator's page on --listen (nil: none).
	page *operatorPage
}

// serveHelp is the serve command's help text.
const serveHelp = `serve runs a scheduled job for users without a scheduler: at every slot of
--schedule (a cron specification such as "0 * * * *", a descriptor such as
@hourly, or "@every 1h"; UTC) it releases the latest readings of the
configured Neo4j projection (--values FILE, re-read at every slot, or
--value-property P) under the slot's epoch, then locates the source
communities on that release and writes them back — one run record per step,
both carrying the epoch. Everything a release guarantees holds: a slot run
twice (two servers, a restart) is one charge; a crashed run's epoch is
finished by the next run with the stored values.

Slots: a slot's epoch is its start in UTC (2026-11-22T10:00Z for an hourly
slot). Runs never overlap: a slot that comes while the previous run is
still going is skipped (logged, counted in /metrics); slots that pass while
serve is not running are not caught up. --jitter delays each run by a
random amount so many servers do not start at once.

Δ2 is computed once and reused while the graph is unchanged: the
certificate is kept in --sensitivity-cache (verified against the graph's
fingerprint, τ and this version at every slot; recomputed when the graph
changed).

When the scope's budget is exhausted the release is refused (logged, counted
in /metrics) and the slot locates on the last release that succeeded.

Shutdown (SIGTERM, SIGINT): no new run starts; the current run has --grace
to finish, after which it is stopped and recorded "interrupted". Exit 0.

/metrics (Prometheus), /healthz and the operator's page / (scope, budget
left, the last runs, the latest ranking with its picture; plain HTML) are
served on --listen, localhost by default; --listen "" turns them off.`

func newServeCmd(g *globalOptions) *cobra.Command {
	opts := &serveOptions{g: g, cache: newCommunityCache()}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run release → locate on a schedule against Neo4j, with /metrics and /healthz",
		Long:  serveHelp,
		Example: `  export GRAPHCLOAK_NEO4J_PASSWORD=...
  graphcloak budget --init --ledger neo4j --scope whisper --epsilon-total 20 --delta-total 1e-5
  graphcloak serve --schedule @hourly --node-labels Person --relationship-types KNOWS \
      --node-key-property personId --value-property exposure --write-property exposurePrivate \
      --ledger neo4j --scope whisper --epsilon 0.5 --delta 1e-7 \
      --sensitivity-cache /var/lib/graphcloak/delta2.json --communities property:community`,
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.graph, "graph", neo4jSpec, "the graph: neo4j (the configured projection; a scheduled job keeps its history there)")
	f.StringVar(&opts.schedule, "schedule", "", `when to run: a cron specification ("0 * * * *"), a descriptor (@hourly) or "@every 1h" (UTC)`)
	durationVar(f, &opts.jitter, "jitter", 0, "delay each run by a random duration below this")
	durationVar(f, &opts.grace, "grace", 20*time.Second, "on shutdown, how long the current run may go on before it is stopped and recorded interrupted")
	f.StringVar(&opts.listen, "listen", "127.0.0.1:9464", `address of /metrics, /healthz and the operator's page / ("" for none)`)
	f.IntVar(&opts.maxRuns, "max-runs", 0, "stop after this many slots (0: until a signal)")
	f.StringVar(&opts.values, "values", "", "raw readings CSV node,value, re-read at every slot")
	f.StringVar(&opts.sensitivityCache, "sensitivity-cache", "", "Δ2 certificate file reused while the graph is unchanged (see release --sensitivity-cache)")
	f.StringVar(&opts.communities, "communities", "leiden", "communities for locate (as in locate --communities)")
	f.Float64Var(&opts.resolution, "resolution", 1, "modularity resolution γ of leiden/louvain")
	f.BoolVar(&opts.noLocate, "no-locate", false, "release only (no locate step)")
	f.BoolVar(&opts.privateAnswer, "private-answer", false, "each slot publishes only the source community under ε-DP (locate --private-answer), charged to the scope under the slot's epoch")
	f.IntVar(&opts.answerCap, "answer-cap", 0, "distance cap of the answer mechanism (1: randomized response; 0: the most accurate)")
	durationVar(f, &opts.lease, "lease", connector.DefaultLease, "Neo4j run lease (see release --lease)")
	durationVar(f, &opts.wait, "wait", connector.DefaultLease, "wait this long for another live release of the scope (see release --wait)")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, config.PrivacyFlags...)
	config.AddFlags(f, "value-property", "header", "estimator", "sources")
	config.AddFlags(f, config.WriteFlags...)
	return cmd
}

// runServe validates the job once, starts /metrics, and runs the slots
// until a signal (or --max-runs).
func runServe(ctx context.Context, opts *serveOptions) error {
	g := opts.g
	spec, err := checkServe(opts)
	if err != nil {
		return err
	}
	m := metrics.New()
	svc := &service.Service{Metrics: m, Logger: g.logger, Runner: &schedule.Runner{Spec: spec, Jitter: opts.jitter, Grace: opts.grace,
		MaxRuns: opts.maxRuns, Logger: g.logger, Skipped: func(time.Time) { m.SlotSkipped() }}}
	if opts.listen != "" {
		page, closePage, err := newOperatorPage(opts)
		if err != nil {
			return err
		}
		defer closePage()
		opts.page, svc.Page = page, page
		if svc.Listener, err = net.Listen("tcp", opts.listen); err != nil {
			return inputErrorf("--listen: %w", err)
		}
	}
	// Shutdown: /healthz 503 first, then the run's grace (service.Run).
	_ = svc.Run(ctx, func(ctx context.Context, slot time.Time) error { return runSlot(ctx, opts, spec, m, slot) })
	return nil
}

// checkServe checks the schedule and the job's flags before anything
// runs: the release of a slot is validated as it will be made (its values
// file and key read), so a bad flag fails now, not at the first slot.
func checkServe(opts *serveOptions) (schedule.Spec, error) {
	cfg := &opts.g.cfg.Config
	switch {
	case opts.graph != neo4jSpec:
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
	check := opts.g.forRun("check", "check") // a copy: checks may set fields
	if opts.privateAnswer {
		return spec, checkPrivateAnswer(answerOptionsFor(opts, check, ""))
	}
	if _, err := checkRelease(releaseOptionsFor(opts, check, "")); err != nil {
		return schedule.Spec{}, err
	}
	if !opts.noLocate {
		if _, err := checkLocate(locateOptionsFor(opts, check, "check", "")); err != nil {
			return schedule.Spec{}, err
		}
	}
	return spec, nil
}

// runSlot is one scheduled job: release under the slot's epoch, then
// locate on that release (or, when the budget refused it, on the last
// release that succeeded). Each step logs with its own run id.
func runSlot(ctx context.Context, opts *serveOptions, spec schedule.Spec, m *metrics.Metrics, slot time.Time) error {
	epoch := spec.Epoch(slot)
	if opts.privateAnswer {
		return answerSlot(ctx, opts, m, epoch)
	}
	relID := newRunID()
	rg := opts.g.forRun(relID, epoch)
	t0 := time.Now()
	sum, err := releaseOnce(ctx, releaseOptionsFor(opts, rg, relID))
	noteReleaseMetrics(m, rg.cfg.Privacy.Scope, sum, err, time.Since(t0))
	var releaseRun string
	switch {
	case errkind.Of(err) == errkind.Budget:
		rg.logger.Error("release refused: the scope's budget is exhausted; locating on the last release", "error", err, "exitCode", exitCode(err))
		if releaseRun, err = lastRelease(ctx, rg); err != nil || releaseRun == "" {
			return err
		}
	case err != nil:
		rg.logger.Error("release failed", "error", err, "exitCode", exitCode(err))
		return err
	default:
		releaseRun = sum.RunID
		rg.logger.Info("slot released", "releaseRun", releaseRun, "alreadyPublished", sum.AlreadyPublished,
			"resumed", sum.Resumed, "rhoRemaining", sum.RhoRemaining)
	}
	if opts.noLocate {
		return nil
	}
	locID := newRunID()
	lg := opts.g.forRun(locID, epoch)
	t0 = time.Now()
	lsum, _, err := locateOnce(ctx, locateOptionsFor(opts, lg, releaseRun, locID), io.Discard)
	nodes := 0
	if lsum != nil {
		nodes = lsum.NodeCount
	}
	m.Run("locate", runStatus(err), time.Since(t0), nodes)
	if err != nil {
		lg.logger.Error("locate failed", "error", err, "exitCode", exitCode(err))
		return err
	}
	opts.page.located(epoch, releaseRun, lsum)
	top := lsum.Report.Communities
	if len(top) > 0 {
		lg.logger.Info("slot located", "releaseRun", releaseRun, "topCommunity", top[0].Name, "probability", top[0].Share)
	} else {
		lg.logger.Info("slot located: no detectable source", "releaseRun", releaseRun)
	}
	return nil
}

// noteReleaseMetrics records a release step in m.
func noteReleaseMetrics(m *metrics.Metrics, scope string, sum *releaseSummary, err error, d time.Duration) {
	var be *privacy.BudgetError
	switch {
	case errors.As(err, &be):
		m.BudgetRefused(scope)
		m.Budget(scope, be.Spent, be.Remaining)
	case err == nil:
		m.Budget(scope, sum.RhoSpent, sum.RhoRemaining)
		if sum.SensitivityReused {
			m.SensitivityReused()
		}
	}
	nodes := 0
	if sum != nil {
		nodes = sum.NodeCount
	}
	m.Run("release", runStatus(err), d, nodes)
}

// runStatus names how a step ended, as its run record does.
func runStatus(err error) string {
	switch errkind.Of(err) {
	case errkind.Interrupted:
		return connector.StatusInterrupted
	case errkind.Budget:
		return "refused"
	}
	if err != nil {
		return connector.StatusFailed
	}
	return connector.StatusSucceeded
}

// lastRelease returns the run id of the scope's newest succeeded release,
// or "" (logged) when there is none.
func lastRelease(ctx context.Context, g *globalOptions) (string, error) {
	client, err := connectNeo4jLogged(ctx, g)
	if err != nil {
		return "", err
	}
	defer client.Close(context.WithoutCancel(ctx))
	id, err := latestRelease(ctx, client, &g.cfg.Config)
	var none *noReleaseError
	if errors.As(err, &none) {
		g.logger.Warn("no succeeded release in the scope yet: nothing to locate")
		return "", nil
	}
	return id, err
}

// forRun returns a copy of g for one step of a slot: its own copy of the
// configuration (a step sets its epoch) and a logger that names the run.
func (g *globalOptions) forRun(runID, epoch string) *globalOptions {
	c := *g
	cfg := *g.cfg
	c.cfg = &cfg
	c.cfg.Privacy.Epoch = epoch
	c.logger = g.logger.With("runId", runID, "epoch", epoch)
	return &c
}

func releaseOptionsFor(opts *serveOptions, g *globalOptions, runID string) *releaseOptions {
	return &releaseOptions{g: g, graph: neo4jSpec, values: opts.values, lease: opts.lease, wait: opts.wait,
		sensitivityCache: opts.sensitivityCache, runID: runID}
}

// answerSlot publishes the slot's private answer.
func answerSlot(ctx context.Context, opts *serveOptions, m *metrics.Metrics, epoch string) error {
	id := newRunID()
	g := opts.g.forRun(id, epoch)
	t0 := time.Now()
	sum, err := answerOnce(ctx, answerOptionsFor(opts, g, id))
	nodes := 0
	if sum != nil {
		nodes = sum.NodeCount
	}
	m.Run("answer", runStatus(err), time.Since(t0), nodes)
	if err != nil {
		g.logger.Error("private answer failed", "error", err, "exitCode", exitCode(err))
		return err
	}
	g.logger.Info("slot answered", "community", sum.Answer.Community, "mechanism", sum.Answer.Calibration.Mechanism)
	return nil
}

func answerOptionsFor(opts *serveOptions, g *globalOptions, runID string) *locateOptions {
	return &locateOptions{g: g, graph: neo4jSpec, communities: opts.communities, resolution: opts.resolution, runID: runID, communityCache: opts.cache,
		privateAnswer: answerOptions{enabled: true, values: opts.values, cap: opts.answerCap}}
}

func locateOptionsFor(opts *serveOptions, g *globalOptions, releaseRun, runID string) *locateOptions {
	lo := &locateOptions{g: g, graph: neo4jSpec, releaseRun: releaseRun, communities: opts.communities,
		resolution: opts.resolution, runID: runID, plotValue: "posterior", communityCache: opts.cache}
	if opts.page != nil {
		lo.plot = opts.page.picturePath(runID) // the operator's page shows it
	}
	return lo
}

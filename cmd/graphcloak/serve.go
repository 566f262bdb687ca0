package main

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/service"
	"github.com/graphcloak/graphcloak/stores"
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
	// listening is --listen, --max-connections and TLS (serve_collect.go).
	listening service.Listening
	maxRuns   int
	// What each slot runs: release of values (or value-property) to the
	// write property, then locate on that release.
	values           string
	sensitivityCache string
	communities      string
	resolution       float64
	lease, wait      time.Duration
	noLocate         bool
	forecastTrials   int // simulated sources of each slot's forecast (locate --forecast-trials)
	// sourceMass is the stated total source mass of every slot's readings
	// (--source-mass; 0: estimated by each locate, none for the release's
	// --refuse-at-chance).
	sourceMass float64
	// privateAnswer: each slot publishes only the source community
	// (locate --private-answer) instead of a release and a localisation.
	privateAnswer bool
	answerCap     int
	fitTolerance  float64
	model         modelFlags
	onMismatch    string
	answerCache   string
	cacheDir      string // the work store (--cache-dir), unless --answer-cache
	// healthFailedSlots failed slots in a row make /healthz 503 (0: never).
	healthFailedSlots int
	collect           collectServeOptions // serve_collect.go
}

func newServeCmd(g *globalOptions) *cobra.Command {
	opts := &serveOptions{g: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run release → locate on a schedule against Neo4j, with /metrics and /healthz",
		Long:  serveHelp + serveCollectHelp,
		Example: `  export GRAPHCLOAK_NEO4J_PASSWORD=...
  graphcloak budget --init --ledger neo4j --scope whisper --epsilon-total 20 --delta-total 1e-5
  graphcloak serve --schedule @hourly --node-labels Person --relationship-types KNOWS \
      --node-key-property personId --value-property exposure --write-property exposurePrivate \
      --ledger neo4j --scope whisper --epsilon 0.5 --delta 1e-7 \
      --sensitivity-cache /var/lib/graphcloak/delta2.json --communities property:community`,
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.model.check(cmd.Flags()); err != nil {
				return err
			}
			return runServe(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	graphFlag(f, &opts.graph, stores.Neo4jSpec, graphDatabase, "the configured projection (a scheduled job keeps its history there)")
	f.StringVar(&opts.schedule, "schedule", "", `when to run: a cron specification ("0 * * * *"), a descriptor (@hourly) or "@every 1h" (UTC)`)
	durationVar(f, &opts.jitter, "jitter", 0, "delay each run by a random duration below this")
	durationVar(f, &opts.grace, "grace", 20*time.Second, "on shutdown, how long the current run may go on before it is stopped and recorded interrupted")
	f.StringVar(&opts.listening.Addr, "listen", "127.0.0.1:9464", `address of /metrics, /healthz and the operator's page / ("" for none)`)
	f.IntVar(&opts.maxRuns, "max-runs", 0, "stop after this many slots (0: until a signal)")
	f.IntVar(&opts.healthFailedSlots, "health-failed-slots", service.DefaultFailedSlots,
		"/healthz answers 503 once this many slots in a row failed (0: failed slots never do; an unreachable database always does)")
	f.StringVar(&opts.values, "values", "", "raw readings CSV node,value, re-read at every slot")
	f.StringVar(&opts.sensitivityCache, "sensitivity-cache", "", "Δ2 certificate file reused while the graph is unchanged (see release --sensitivity-cache)")
	communitiesFlag(f, "communities each slot's locate, private answer and forecasts score: "+communityKindsHelp("serve"))
	f.Float64Var(&opts.resolution, "resolution", 1, "modularity resolution γ of leiden/louvain")
	f.BoolVar(&opts.noLocate, "no-locate", false, "release only (no locate step)")
	config.AddFlags(f, "refuse-at-chance") // a slot refused so locates on the last release
	f.Float64Var(&opts.sourceMass, "source-mass", 0, sourceMassUsage)
	f.IntVar(&opts.forecastTrials, "forecast-trials", 100, "simulated sources of each slot's utility forecast, which decides its noise verdict (as in locate; 0: none, the ranking's posterior decides)")
	f.BoolVar(&opts.privateAnswer, "private-answer", false, "each slot publishes only the source community under ε-DP (locate --private-answer), charged to the scope under the slot's epoch")
	f.IntVar(&opts.answerCap, "answer-cap", 0, "distance cap of the answer mechanism (1: randomized response; 0: the most accurate)")
	addFitFlags(f, &opts.fitTolerance, &opts.model, &opts.onMismatch, &opts.answerCache)
	addCacheDirFlag(f, &opts.cacheDir)
	durationVar(f, &opts.lease, "lease", connector.DefaultLease, "Neo4j run lease (see release --lease)")
	durationVar(f, &opts.wait, "wait", connector.DefaultLease, "wait this long for another live release of the scope (see release --wait)")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, config.PrivacyFlags...)
	// Refused (--epoch: each slot's epoch is its start) or ignored with a
	// warning (budgets are budget --init's): bound, so the refusal and the
	// warning still speak, but not listed.
	// --graph has one value, neo4j (the default).
	hideFlags(f, "epoch", "epsilon-total", "delta-total", "graph")
	config.AddFlags(f, "value-property", "header", "duplicate-edges", "estimator", "sources")
	config.AddFlags(f, config.WriteFlags...)
	addCollectFlags(f, opts)
	return cmd
}

// runServe checks the job once, opens the stores every slot runs
// against, starts /metrics, and runs the slots until a signal (or
// --max-runs).
func runServe(ctx context.Context, opts *serveOptions) error {
	g := opts.g
	opts.communities = g.cfg.Recovery.Communities
	if opts.collect.order != "" || opts.collect.openEpochs {
		return runServeCollector(ctx, opts)
	}
	spec, steps, err := checkServe(opts)
	if err != nil {
		return err
	}
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	st, err := openStores(ctx, g, after, stores.Options{Neo4j: true, CheckProjection: true, Ledger: stores.ReadWrite})
	if err != nil {
		return err
	}
	defer func() { st.Close(after.Context()) }()
	steps.Backend = service.OnStores(st)
	m, running := serveMetrics(g, steps)
	svc := &service.Service{Metrics: m, Logger: g.logger, Runner: &schedule.Runner{Spec: spec, Jitter: opts.jitter, Grace: opts.grace,
		MaxRuns: opts.maxRuns, Logger: g.logger, Skipped: func(time.Time) { m.SlotSkipped() }}}
	if opts.listening.Addr != "" {
		svc.Health = serveHealth(opts, st)
		page, err := newOperatorPage(opts, running, st)
		if err != nil {
			return err
		}
		defer page.Close()
		svc.Page, steps.Observer = page, page
		if svc.Listener, err = opts.listening.Listen(); err != nil {
			return err
		}
	}
	slot := steps.Slot(service.Slot{Epoch: spec.Epoch, Logger: g.logger, Metrics: m, ErrorAttrs: exitCodeAttr})
	// Shutdown: /healthz 503 first, then the run's grace (service.Run),
	// which returns the listener's error.
	return svc.Run(ctx, slot.Run)
}

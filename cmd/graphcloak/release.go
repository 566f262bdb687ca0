package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"text/tabwriter"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/graphcloak/graphcloak/writeback"
	"github.com/spf13/cobra"
)

// releaseOptions are the release command's own flags; the rest (privacy
// parameters, projection, write-back) are configuration keys.
type releaseOptions struct {
	g      *globalOptions
	stdin  io.Reader
	graph  string
	values string // FILE or "-"
	out    string
	dryRun bool
	// forecastTrials are the dry run's simulated sources (0: no forecast).
	forecastTrials int
	// smooth is extra diffusion τ′ before the noise (ReleaseJob.Smooth).
	smooth float64
	lease  time.Duration
	// Δ2: a stored certificate (verified against the graph), or a time
	// budget for computing it (the best proven bound reached).
	sensitivityCert string
	timeBudget      time.Duration
	certified       *sensitivity.Result // the verified certificate's Δ2
	// sensitivityCache: a certificate file reused while it verifies
	// against the graph (and this software), rewritten when it does not.
	sensitivityCache string
	// slot is the schedule granularity of --epoch auto; now the clock.
	slot time.Duration
	now  func() time.Time
	// wait is how long to wait for another live run holding the scope
	// (or publishing this epoch, or writing the same --out file) before
	// giving up with exit 8.
	wait time.Duration
	// runID, when set, names this run (serve logs it before the release
	// starts); otherwise a fresh one is made.
	runID string
}

// releaseHelp is the release command's help text.
const releaseHelp = `release computes the certified sensitivity Δ2 of the heat-diffusion measurement
exp(−τL) on the graph, charges the privacy ledger, and publishes each node's
reading plus discrete Gaussian noise calibrated to Δ2, ε and δ.

Readings come from exactly one of:
  --values FILE|-          raw readings as CSV "node,value" (header optional) from a
                           file or standard input — what a sensor gateway sends. Only
                           the private values are written: raw readings never reach
                           the database (local privacy).
  --value-property P       a raw property already stored in Neo4j (the explicitly
                           named other mode; needs --graph neo4j).

On --graph neo4j the private values are written to --write-property, each
with the run's id in <write-property>_runId, and a (:GraphcloakRun) record
holds the run (running with a lease → succeeded, or failed). The released
values are stored in the database before the first node is written, so
re-running the same command with the same --epoch after a crash finishes the
write with exactly those values — no new charge, no new noise, exit 0 — and
re-running a completed epoch does nothing (exit 0). On other graphs the
release file goes to --out (checked writable before anything is charged). A
release file is never overwritten: the same scope and epoch at --out is
already published (exit 0, no charge); any other file there is refused
(exit 3) — give each epoch its own --out.
--dry-run prints counts, the sensitivity method, memory and time estimates
and exactly the σ the release will use, and writes, charges and draws nothing.

The budget: the scope (--scope) must have been created by the operator with
"graphcloak budget --init"; a release never creates, raises or resets a budget
(a missing ledger or scope exits 3 with the command to run).

What is protected. The guarantee holds when each reading is exp(−τL)·f0 at the
node (plus anything that does not depend on where the sources are) for the
--tau given, and --alpha is the reading mass of one protected unit times hops —
in reading units, e.g. the heat signature of one person. Readings made at
τ = 1 but released with --tau 10, or a source of mass 10^6 released with
--alpha 1, get an actual ε many orders of magnitude above --epsilon. When τ is
uncertain, give the smallest plausible τ; when the unit's mass is uncertain,
the largest plausible α. A warning goes to stderr when σ is below 1e-6 of the
readings' spread.

Exit codes: 3 bad input, missing ledger or scope; 4 Neo4j unreachable or a
timeout; 5 budget exhausted; 7 the epoch was charged but cannot be published
(use a new --epoch); 8 another release held the scope or the --out file for
longer than --wait; 0 also when the epoch was already published.`

func newReleaseCmd(g *globalOptions) *cobra.Command {
	opts := &releaseOptions{g: g}
	cmd := &cobra.Command{
		Use:   "release",
		Short: "Release private per-node values (Gaussian noise calibrated to the certified Δ2)",
		Long:  releaseHelp,
		Example: `  # Local privacy: raw readings from a gateway on stdin, private values to Neo4j
  export GRAPHCLOAK_NEO4J_PASSWORD=...
  graphcloak budget --init --ledger neo4j --scope building-7 --epsilon-total 10 --delta-total 1e-5
  gateway-dump | graphcloak release --graph neo4j --node-labels Room --relationship-types DOOR \
      --node-key-property roomId --values - --epsilon 1 --delta 1e-6 --ledger neo4j \
      --scope building-7 --epoch 2026-11-21T06:00

  # A generated graph, readings from a file, release file out
  graphcloak release --graph karate --values readings.csv --out release.json --ledger ledger.json

  # What would it cost?
  graphcloak release --graph neo4j --values readings.csv --dry-run -o json`,
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.stdin = cmd.InOrStdin()
			return runRelease(cmd.Context(), opts, opts.g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.graph, "graph", "", "graph: neo4j (the configured projection), a generator (karate, sbm:…, grid:…) or file:PATH")
	f.StringVar(&opts.values, "values", "", "raw readings CSV node,value from FILE, or - for standard input")
	f.StringVar(&opts.out, "out", "", "write the release file here (required for graphs outside Neo4j)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "estimate only: counts, method, memory, time, σ and the utility forecast; nothing written")
	f.IntVar(&opts.forecastTrials, "forecast-trials", 100, "simulated sources of the dry run's utility forecast (0: none)")
	f.Float64Var(&opts.smooth, "smooth", 0, "extra diffusion τ′ applied to the readings before the noise: releases exp(−τ′L)·y, calibrated on Δ2 at τ+τ′ (compare with --dry-run)")
	f.StringVar(&opts.sensitivityCert, "sensitivity-cert", "", "use the Δ2 certificate written by sensitivity --save (refused, exit 3, unless it matches this graph and τ)")
	f.StringVar(&opts.sensitivityCache, "sensitivity-cache", "", "reuse the Δ2 certificate in this file while it verifies against the graph, τ and this version; otherwise compute Δ2 and store its certificate here (scheduled releases)")
	durationVar(f, &opts.timeBudget, "time-budget", 0, "compute Δ2 for at most this long and use the best proven upper bound reached (never an estimate; 0 = to completion)")
	durationVar(f, &opts.slot, "slot", time.Hour, "schedule slot of --epoch auto: the epoch is the slot's UTC start, so a retry within the slot is the same epoch")
	durationVar(f, &opts.wait, "wait", connector.DefaultLease, "wait this long for another live release of the same scope (or epoch, or --out file) to end; then exit 8")
	durationVar(f, &opts.lease, "lease", connector.DefaultLease, "Neo4j run lease: a run that sends no heartbeat for this long is taken for dead (abandoned) and its epoch can be resumed")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, config.PrivacyFlags...)
	config.AddFlags(f, "value-property", "write-property", "batch-size", "concurrency", "header")
	return cmd
}

// releaseSummary is the output of release (-o json keys in GDS style).
type releaseSummary struct {
	RunID             string  `json:"runId,omitempty"`
	Graph             string  `json:"graph"`
	DryRun            bool    `json:"dryRun"`
	ValuesFrom        string  `json:"valuesFrom"`
	TimeBudgetSeconds float64 `json:"timeBudgetSeconds,omitempty"` // --time-budget, when given
	NodeCount         int     `json:"nodeCount"`
	RelationshipCount int     `json:"relationshipCount"`
	Delta2            float64 `json:"delta2"`
	Delta2Exact       bool    `json:"delta2Exact"`
	SensitivityMethod string  `json:"sensitivityMethod,omitempty"`
	// SensitivityReused: Δ2 came from --sensitivity-cache (graph unchanged).
	SensitivityReused bool    `json:"sensitivityReused"`
	Sigma             float64 `json:"sigma"`
	Rho               float64 `json:"rho"`
	Epsilon           float64 `json:"epsilon"`
	Delta             float64 `json:"delta"`
	Mechanism         string  `json:"mechanism"`
	Keyed             bool    `json:"keyed"`
	Scope             string  `json:"scope"`
	// RhoSpent and RhoRemaining are the scope's zCDP budget after this run.
	RhoSpent              float64 `json:"rhoSpent"`
	RhoRemaining          float64 `json:"rhoRemaining"`
	Epoch                 string  `json:"epoch,omitempty"`
	ReleaseID             string  `json:"releaseId,omitempty"`
	Ledger                string  `json:"ledger"`
	WriteProperty         string  `json:"writeProperty,omitempty"`
	NodePropertiesWritten int     `json:"nodePropertiesWritten"`
	Out                   string  `json:"out,omitempty"`
	// AlreadyPublished: the epoch was charged and published before; this
	// run did nothing (exit 0). Resumed: this run finished publishing a
	// charged epoch's stored values (no new charge, no new draw).
	AlreadyPublished bool              `json:"alreadyPublished"`
	Resumed          bool              `json:"resumed"`
	ComputeMillis    int64             `json:"computeMillis"`
	WriteMillis      int64             `json:"writeMillis"`
	Plan             *graphcloak.Plan  `json:"plan,omitempty"`
	Forecast         *releaseForecasts `json:"forecast,omitempty"`
}

// releaseInputs are release's inputs after validation, before the ledger,
// the database or any output is touched.
type releaseInputs struct {
	isDB          bool
	explicitEpoch bool
	valueProp     string                   // raw readings in this Neo4j property, or ""
	readings      map[string]float64       // raw readings from --values, or nil
	valuesFrom    string                   // "csv:FILE" or "property:P"
	cert          *sensitivity.Certificate // --sensitivity-cert, not yet verified
	mech          privacy.Mechanism
	noise         privacy.NoiseSource
	// ledgerKey (--ledger-key) authenticates certificates: with one, a
	// certificate or cache without a valid MAC is never trusted.
	ledgerKey *privacy.Key
}

// runRelease releases (releaseOnce) and prints the summary.
func runRelease(ctx context.Context, opts *releaseOptions, out io.Writer) error {
	sum, err := releaseOnce(ctx, opts)
	if err != nil {
		return err
	}
	return printReleaseSummary(opts.g, out, sum)
}

// releaseOnce validates everything, then connects (if needed), releases and
// writes. See newReleaseCmd for the modes, publish for the crash-safe
// publication to the database and republish for retries of an epoch.
func releaseOnce(ctx context.Context, opts *releaseOptions) (sum *releaseSummary, err error) {
	g := opts.g
	cfg := &g.cfg.Config
	after := newAfterRun(ctx) // one deadline for everything deferred below
	defer after.Close()
	in, err := checkRelease(opts)
	if err != nil {
		return nil, err
	}
	var pending *privacy.PendingReleaseFile
	if opts.out != "" && !opts.dryRun {
		if pending, err = prepareReleaseFile(ctx, opts); err != nil {
			return nil, err
		}
		defer pending.Abort()
	}
	runID := opts.runID
	if runID == "" {
		runID = newRunID()
	}
	if sum, err = newReleaseSummary(opts, in, runID); err != nil {
		return nil, err
	}
	// Connect once (graph and/or ledger in Neo4j).
	var client *connector.Client
	if in.isDB || (cfg.Privacy.Ledger == "neo4j" && !opts.dryRun) {
		if client, err = connectNeo4jLogged(ctx, g); err != nil {
			return nil, err
		}
		defer func() { client.Close(after.Context()) }()
	}
	var ledger privacy.Ledger
	if !opts.dryRun {
		if ledger, err = openReleaseLedger(ctx, g, client); err != nil {
			return nil, err
		}
		defer func() { noteBalance(after.Context(), ledger, sum) }()
	}
	if pending != nil { // after the ledger verified, before anything is charged
		if done, err := existingReleaseFile(opts, in, sum); done || err != nil {
			return sum, err
		}
	}
	// A charged epoch is never drawn again: re-publish or do nothing. The
	// run record: "running" (with a lease on the scope) first,
	// "succeeded" last, "failed" on error.
	var run *connector.Run
	if in.isDB && !opts.dryRun {
		var prev *connector.RunRecord
		if run, prev, err = claimRelease(ctx, opts, in, client, runID, sum.Epoch); err != nil {
			return nil, err
		}
		if prev != nil {
			return sum, republish(ctx, opts, client, prev, sum)
		}
		sum.RunID = runID
		defer func() { recordFailure(after.Context(), g, run, err) }()
	}
	st := &releaseState{opts: opts, in: in, client: client, ledger: ledger, run: run, pending: pending, sum: sum}
	if !opts.dryRun {
		if done, err := checkAffordable(ctx, st); done || err != nil {
			return sum, err
		}
	}
	lg, y, err := loadReadings(ctx, opts, in, client, sum)
	if err != nil {
		return nil, err
	}
	if opts.dryRun {
		return sum, dryRunRelease(ctx, opts, sum, lg, in.mech)
	}
	return sum, drawAndPublish(ctx, st, lg, y)
}

// prepareReleaseFile checks and locks --out (privacy.PrepareReleaseFile),
// waiting up to --wait for another release writing the same file.
func prepareReleaseFile(ctx context.Context, opts *releaseOptions) (*privacy.PendingReleaseFile, error) {
	wctx, cancel := context.WithTimeout(ctx, opts.wait)
	defer cancel()
	pending, err := privacy.PrepareReleaseFile(wctx, opts.out, func() {
		opts.g.logger.Info("waiting for another release writing the same --out to commit", "out", opts.out)
	})
	var busy *privacy.ReleaseFileBusyError
	switch {
	case err == nil:
		return pending, nil
	case errors.As(err, &busy):
		return nil, fmt.Errorf("--out: %w: gave up after --wait %v; re-run once it ends", err, opts.wait)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, inputErrorf("--out: %w", err)
}

// releaseState is what a release has opened before it draws: where it
// publishes (a pending release file, a database run) and what it charges.
type releaseState struct {
	opts    *releaseOptions
	in      *releaseInputs
	client  *connector.Client
	ledger  privacy.Ledger
	run     *connector.Run
	pending *privacy.PendingReleaseFile
	sum     *releaseSummary
}

// drawAndPublish charges the ledger and draws (drawRelease), then commits
// the release file and/or publishes to the database. A file release of an
// epoch already charged is a no-op when its file is there.
func drawAndPublish(ctx context.Context, st *releaseState, lg *loadedGraph, y []float64) error {
	sum := st.sum
	res, err := drawRelease(ctx, st.opts, st.in, st.ledger, lg, y, sum)
	if err == nil {
		noteBalance(ctx, st.ledger, sum) // the run record keeps the budget left
	}
	if errors.Is(err, privacy.ErrAlreadyCharged) {
		if st.pending != nil {
			return alreadyPublishedFile(st.opts, sum, err)
		}
		return chargedError{epoch: sum.Epoch, err: fmt.Errorf("no run stored its values: %w", err)}
	}
	if err != nil {
		return err
	}
	if st.pending != nil {
		if err := st.pending.Commit(res.Released); err != nil {
			return chargedError{epoch: sum.Epoch, err: err}
		}
		sum.Out = st.opts.out
	}
	if st.in.isDB {
		return publish(ctx, st.opts, st.client, st.run, res.Released, sum)
	}
	return nil
}

// checkRelease validates release's flags and reads its local inputs (the
// certificate, the noise key, the readings file).
func checkRelease(opts *releaseOptions) (*releaseInputs, error) {
	cfg := &opts.g.cfg.Config
	if cfg.Privacy.Epoch == "auto" {
		if opts.slot < time.Minute || opts.slot > 366*24*time.Hour {
			return nil, inputErrorf("--slot must be between 1m and 366 days, got %v", opts.slot)
		}
		now := time.Now
		if opts.now != nil {
			now = opts.now
		}
		cfg.Privacy.Epoch = schedule.EpochName(now(), opts.slot)
	}
	in := &releaseInputs{isDB: opts.graph == neo4jSpec, explicitEpoch: cfg.Privacy.Epoch != "",
		valueProp: cfg.Projection.ValueProperty}
	if err := checkReleaseFlags(opts, in); err != nil {
		return nil, err
	}
	var err error
	if in.mech, err = privacy.ParseMechanism(cfg.Privacy.Mechanism); err != nil {
		return nil, inputErrorf("--mechanism: %v", err)
	}
	in.noise = privacy.CryptoNoise()
	if cfg.Privacy.KeyFile != "" {
		key, err := privacy.LoadKey(cfg.Privacy.KeyFile)
		if err != nil {
			return nil, err
		}
		in.noise = privacy.KeyedNoise(key)
	}
	in.valuesFrom = "property:" + in.valueProp
	if opts.values != "" {
		in.valuesFrom = "csv:" + opts.values
		header, _ := csvin.ParseHeader(cfg.Input.Header) // validated by config
		if in.readings, err = readReadings(opts.stdin, opts.values, header); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// checkReleaseFlags checks the combination of flags, loads the
// certificate, and checks every name and parameter.
func checkReleaseFlags(opts *releaseOptions, in *releaseInputs) error {
	cfg := &opts.g.cfg.Config
	switch {
	case !(opts.smooth >= 0) || math.IsInf(opts.smooth, 0):
		return inputErrorf("--smooth must be a finite τ′ ≥ 0, got %v", opts.smooth)
	case opts.graph == "":
		return usageErrorf("--graph is required (neo4j, a generator such as karate, or file:PATH)")
	case (opts.values == "") == (in.valueProp == ""):
		return usageErrorf("give exactly one of --values FILE|- (raw readings; they never reach the database) or --value-property P (a raw property already in Neo4j)")
	case in.valueProp != "" && !in.isDB:
		return usageErrorf("--value-property reads a property from Neo4j and needs --graph neo4j")
	case in.valueProp != "" && in.valueProp == cfg.Write.WriteProperty:
		return usageErrorf("--write-property must differ from --value-property %q (never overwrite the raw readings)", in.valueProp)
	case opts.out == "-":
		return usageErrorf("--out - is not supported: a release file must be a file (a re-run of its epoch is checked against it)")
	case !in.isDB && opts.out == "" && !opts.dryRun:
		return usageErrorf("--out FILE is required for a graph outside Neo4j (the release file)")
	case opts.sensitivityCert != "" && opts.timeBudget != 0:
		return usageErrorf("give --sensitivity-cert or --time-budget, not both")
	case opts.sensitivityCert != "" && opts.sensitivityCache != "":
		return usageErrorf("give --sensitivity-cert (a fixed certificate) or --sensitivity-cache (reused while it verifies), not both")
	case opts.timeBudget < 0:
		return inputErrorf("--time-budget must be ≥ 0, got %v", opts.timeBudget)
	}
	lopt, err := ledgerOptions(cfg)
	if err != nil {
		return err
	}
	in.ledgerKey = lopt.Key
	if opts.sensitivityCert != "" {
		c, err := sensitivity.LoadCertificate(opts.sensitivityCert)
		if err == nil {
			err = c.CheckMAC(in.ledgerKey.CertificateMACKey())
		}
		if err != nil {
			return inputErrorf("--sensitivity-cert: %w", err)
		}
		in.cert = &c
	}
	if err := privacy.CheckName("scope", cfg.Privacy.Scope); err != nil {
		return inputErrorf("--scope: %w", err)
	}
	if in.explicitEpoch {
		if err := privacy.CheckName("epoch", cfg.Privacy.Epoch); err != nil {
			return inputErrorf("--epoch: %w", err)
		}
	}
	if in.isDB {
		if err := connector.CheckWriteProperty(cfg.Write.WriteProperty); err != nil {
			return inputErrorf("--write-property: %w", err)
		}
		if err := connector.CheckOutputs(connector.ReadProperties(projectionOf(cfg), nil),
			map[string]string{"--write-property": cfg.Write.WriteProperty}, map[string]bool{"--write-property": true}); err != nil {
			return err
		}
		if err := projectionOf(cfg).Validate(); err != nil {
			return err
		}
	}
	return graphcloak.CheckParams(cfg.Privacy.Tau, cfg.Privacy.Alpha, cfg.Privacy.Epsilon, cfg.Privacy.Delta)
}

// newReleaseSummary starts the summary: the epoch (the run id unless
// --epoch names one) and the ledger's location.
func newReleaseSummary(opts *releaseOptions, in *releaseInputs, runID string) (*releaseSummary, error) {
	cfg := &opts.g.cfg.Config
	epoch := cfg.Privacy.Epoch
	if epoch == "" {
		epoch = runID
	}
	ledgerName := cfg.Privacy.Ledger
	if ledgerName != "neo4j" {
		var err error
		if ledgerName, err = ledgerPath(cfg); err != nil {
			return nil, err
		}
	}
	return &releaseSummary{Graph: opts.graph, DryRun: opts.dryRun, ValuesFrom: in.valuesFrom, TimeBudgetSeconds: opts.timeBudget.Seconds(), Epsilon: cfg.Privacy.Epsilon,
		Delta: cfg.Privacy.Delta, Keyed: in.noise.Keyed(), Scope: cfg.Privacy.Scope, Ledger: ledgerName, Epoch: epoch}, nil
}

// claimRelease starts this release's run record, which claims the scope
// (connector.ScopeLeaseLabel), or returns the earlier run of the epoch to
// re-publish. While another live run holds the scope or is publishing
// this epoch it waits (up to --wait), so two runs of one slot started
// together end with one release and one no-op.
func claimRelease(ctx context.Context, opts *releaseOptions, in *releaseInputs, client *connector.Client, runID, epoch string) (*connector.Run, *connector.RunRecord, error) {
	cfg := &opts.g.cfg.Config
	deadline := time.Now().Add(opts.wait)
	waiting, raced := "", false
	for {
		var busy error
		prev, err := client.FindRelease(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, epoch)
		if err != nil {
			return nil, nil, err
		}
		switch job.Next(prev, cfg.Write.WriteProperty, time.Now()) {
		case job.Wait:
			busy = &connector.ScopeBusyError{Scope: cfg.Privacy.Scope, Holder: prev.RunID, Until: prev.LeaseExpiresAt}
		case job.Fresh:
			run, err := startReleaseRun(ctx, opts, in, client, runID, epoch)
			if errors.As(err, new(*connector.EpochPublishedError)) && !raced {
				raced = true
				continue // published since FindRelease looked: re-publish it
			}
			if !errors.As(err, new(*connector.ScopeBusyError)) {
				return run, nil, err
			}
			busy = err
		default: // published before: republish decides (job.Next)
			return nil, prev, nil
		}
		var b *connector.ScopeBusyError
		errors.As(busy, &b)
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("%w: gave up after --wait %v; re-run once it ends", busy, opts.wait)
		}
		if waiting != b.Holder {
			waiting = b.Holder
			opts.g.logger.Info("waiting for another release of the scope to end", "scope", b.Scope, "holder", b.Holder, "epoch", epoch)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// startReleaseRun writes the release's run record ("running", with a
// lease).
func startReleaseRun(ctx context.Context, opts *releaseOptions, in *releaseInputs, client *connector.Client, runID, epoch string) (*connector.Run, error) {
	cfg := &opts.g.cfg.Config
	rec := connector.RunRecord{RunID: runID, Command: "release", Database: cfg.Neo4j.Database, Projection: projectionOf(cfg),
		Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta, WriteProperty: cfg.Write.WriteProperty,
		Scope: cfg.Privacy.Scope, Epoch: epoch,
		Parameters: map[string]any{"tau": cfg.Privacy.Tau, "alpha": cfg.Privacy.Alpha, "mechanism": in.mech.String(),
			"keyed": in.noise.Keyed(), "valuesFrom": in.valuesFrom, "ledger": cfg.Privacy.Ledger}}
	rec.Projection.ValueProperty = in.valueProp
	// The write property and its run ids belong to releases: refused
	// (exit 3) when another kind of output or an input owns them.
	if err := client.ClaimOutputs(ctx, rec.Database, runID, "release", connector.Claims{
		Outputs: map[string]string{rec.WriteProperty: connector.KindReleaseValues, connector.RunIDProperty(rec.WriteProperty): connector.KindRunIDs},
		Inputs:  connector.InputClaims(rec.Projection)}); err != nil {
		return nil, err
	}
	return client.StartRun(ctx, rec, opts.lease)
}

// loadReadings loads the graph and the raw readings in node order, and
// verifies a given sensitivity certificate against the graph (setting
// opts.certified).
func loadReadings(ctx context.Context, opts *releaseOptions, in *releaseInputs, client *connector.Client, sum *releaseSummary) (*loadedGraph, []float64, error) {
	g := opts.g
	cfg := &g.cfg.Config
	opts.certified = nil
	pull, endPull := g.pullProgress()
	lg, err := loadGraph(ctx, cfg, opts.graph, loadOptions{Client: client, ValueProperty: in.valueProp, Progress: pull})
	endPull()
	if err != nil {
		return nil, nil, err
	}
	graph := lg.Graph
	sum.NodeCount, sum.RelationshipCount = graph.N(), graph.NumEdges()
	g.logger.Info("graph loaded", "graph", opts.graph, "nodeCount", graph.N(), "relationshipCount", graph.NumEdges())
	var y []float64
	if in.valueProp != "" {
		y = lg.Pulled.Values
	} else if y, err = graphcloak.ValuesByKey(graph, in.readings); err != nil {
		return nil, nil, err
	}
	tau := cfg.Privacy.Tau + opts.smooth // the released model's τ, at which Δ2 must hold
	if in.cert != nil {
		s, err := in.cert.Verify(graph, tau, cfg.Privacy.Alpha)
		if err != nil {
			return nil, nil, inputErrorf("--sensitivity-cert %s: %w", opts.sensitivityCert, err)
		}
		opts.certified = &s
	}
	if opts.sensitivityCache != "" {
		opts.certified = cachedSensitivity(g, opts.sensitivityCache, graph, tau, cfg.Privacy.Alpha, in.ledgerKey)
		sum.SensitivityReused = opts.certified != nil
	}
	return lg, y, nil
}

// cachedSensitivity returns the Δ2 of the certificate at path when it
// verifies against graph, τ and α, was computed by this version of
// graphcloak and (with a ledger key) carries its valid MAC; otherwise nil
// (Δ2 is then computed and the certificate rewritten by
// storeSensitivity). A missing, unreadable, stale or unauthenticated
// cache is never an error: it only costs the computation.
func cachedSensitivity(g *globalOptions, path string, graph *laplacian.Graph, tau, alpha float64, ledgerKey *privacy.Key) *sensitivity.Result {
	c, err := sensitivity.LoadCertificate(path)
	if errors.Is(err, fs.ErrNotExist) {
		g.logger.Info("no sensitivity certificate cached yet: computing Δ2", "cache", path)
		return nil
	}
	if err != nil {
		g.logger.Warn("sensitivity cache unreadable: computing Δ2 and replacing it", "cache", path, "error", err)
		return nil
	}
	if err := c.CheckMAC(ledgerKey.CertificateMACKey()); err != nil {
		g.logger.Warn("sensitivity cache not authenticated under the ledger key: computing Δ2 and replacing it", "cache", path, "reason", err)
		return nil
	}
	if c.Software != buildVersion().String() {
		g.logger.Info("sensitivity certificate made by another version: computing Δ2", "cache", path, "certificateSoftware", c.Software)
		return nil
	}
	s, err := c.Verify(graph, tau, alpha)
	if err != nil {
		g.logger.Info("sensitivity certificate does not match (graph or τ changed): computing Δ2", "cache", path, "reason", err)
		return nil
	}
	g.logger.Info("Δ2 reused from the certificate: the graph is unchanged", "cache", path, "delta2", s.Delta2)
	return &s
}

// storeSensitivity writes the certificate of a freshly computed Δ2 to the
// cache. A failure is logged, not fatal: the release itself is complete.
func storeSensitivity(g *globalOptions, path string, graph *laplacian.Graph, s sensitivity.Result, tau float64, ledgerKey *privacy.Key) {
	c, err := sensitivity.NewCertificate(graph, s, tau, buildVersion().String())
	if err == nil {
		err = c.Seal(ledgerKey.CertificateMACKey())
	}
	if err == nil {
		err = sensitivity.SaveCertificate(path, c)
	}
	if err != nil {
		g.logger.Warn("could not store the sensitivity certificate", "cache", path, "error", err)
		return
	}
	g.logger.Info("sensitivity certificate stored", "cache", path, "delta2", s.Delta2)
}

// drawRelease charges the ledger and draws the noise (graphcloak.Release),
// then clears the raw readings y and records the release in sum.
func drawRelease(ctx context.Context, opts *releaseOptions, in *releaseInputs, ledger privacy.Ledger, lg *loadedGraph, y []float64, sum *releaseSummary) (*graphcloak.ReleaseResult, error) {
	g := opts.g
	cfg := &g.cfg.Config
	res, err := graphcloak.Release(ctx, graphcloak.ReleaseJob{
		Graph: lg.Graph, Values: y, Tau: cfg.Privacy.Tau, Alpha: cfg.Privacy.Alpha,
		Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta, Mechanism: in.mech, Noise: in.noise,
		Ledger: ledger, Scope: cfg.Privacy.Scope, Epoch: sum.Epoch,
		Sensitivity: opts.certified, SensitivityOptions: sensitivity.Options{Progress: g.progress("Δ2"), TimeBudget: opts.timeBudget},
		Smooth: opts.smooth,
	})
	spread := readingSpread(y)
	clear(y)
	if err != nil {
		return nil, err
	}
	res.Released.Meta.ToolVersion = buildVersion().String()
	if opts.sensitivityCache != "" && opts.certified == nil {
		storeSensitivity(g, opts.sensitivityCache, lg.Graph, res.Sensitivity, cfg.Privacy.Tau+opts.smooth, in.ledgerKey) // Δ2 was computed at τ+τ′
	}
	noteReleased(g, sum, res, spread)
	return res, nil
}

// noteBalance records the scope's spend after the run in sum (when there
// is a summary to fill in and the ledger answers).
func noteBalance(ctx context.Context, ledger privacy.Ledger, sum *releaseSummary) {
	if sum == nil {
		return
	}
	if b, err := ledger.Balance(ctx, sum.Scope); err == nil && len(b) == 1 {
		sum.RhoSpent, sum.RhoRemaining = b[0].RhoSpent, b[0].RhoRemaining
	}
}

// noteReleased records the release's numbers in the summary and the log,
// warning when σ is negligible next to the readings' spread.
func noteReleased(g *globalOptions, sum *releaseSummary, res *graphcloak.ReleaseResult, spread float64) {
	rel := res.Released
	if rel.Meta.Sigma < 1e-6*spread {
		g.logger.Warn("σ is below 1e-6 of the readings' spread: the noise protects almost nothing unless the readings are exp(−τL)f0 for this τ and α is the reading mass of one protected unit (see release --help)",
			"sigma", rel.Meta.Sigma)
	}
	sum.Sigma, sum.Rho, sum.Mechanism = rel.Meta.Sigma, rel.Meta.Rho, rel.Meta.Mechanism
	sum.ReleaseID = rel.Meta.ReleaseID
	sum.Delta2, sum.Delta2Exact, sum.SensitivityMethod = res.Sensitivity.Delta2, res.Sensitivity.Exact, res.Sensitivity.Method
	if s := res.Sensitivity; !s.Exact {
		// Still private (σ is calibrated to a proven upper bound), but the
		// operator should know the noise may be far larger than needed.
		g.logger.Warn("Δ2 is a certified upper bound, not the exact value: the release is private but may be noisier than the exact Δ2 needs; "+
			"compute it once without --time-budget (sensitivity --save FILE; sensitivity --dry-run tells how long that takes) and release with --sensitivity-cert FILE",
			"delta2", s.Delta2, "provenLowerBound", s.Delta2-s.Slack, "method", s.Method)
	}
	sum.ComputeMillis = res.SensitivityMillis + res.ReleaseMillis
	g.logger.Info("released", "nodeCount", rel.Meta.N, "delta2", sum.Delta2, "sigma", sum.Sigma, "rho", sum.Rho,
		"scope", sum.Scope, "epoch", sum.Epoch, "releaseId", rel.Meta.ReleaseID, "keyed", sum.Keyed)
}

// publish records the release's numbers in the run record and publishes
// rel through writeback.Release (values stored before the first node write,
// then written bound to the run, succeeded last). A failure before the
// values are stored leaves a charged epoch that cannot be completed
// (chargedError); after, re-running the same command with --epoch finishes
// the write without a new charge.
func publish(ctx context.Context, opts *releaseOptions, client *connector.Client, run *connector.Run, rel *privacy.Released, sum *releaseSummary) error {
	g := opts.g
	cfg := &g.cfg.Config
	rec := &run.Record
	rec.Sigma, rec.Delta2, rec.Rho = sum.Sigma, sum.Delta2, sum.Rho
	rec.NodeCount, rec.RelationshipCount, rec.ComputeMillis = sum.NodeCount, sum.RelationshipCount, sum.ComputeMillis
	rec.Extra = map[string]any{"sensitivityMethod": sum.SensitivityMethod, "delta2Exact": sum.Delta2Exact,
		"mechanism": sum.Mechanism, "keyed": sum.Keyed}
	if sum.RhoSpent > 0 { // the ledger was read after this run's charge
		rec.Extra["rhoRemaining"] = sum.RhoRemaining
	}
	st, err := writeback.Release(ctx, client, run, rel, projectionOf(cfg), connector.WriteOptions{
		BatchSize: cfg.Write.BatchSize, Concurrency: cfg.Write.Concurrency, Progress: g.progress("write-back")})
	var notStored *writeback.NotStoredError
	if errors.As(err, &notStored) {
		return chargedError{epoch: sum.Epoch, err: notStored.Err}
	}
	if err != nil {
		return fmt.Errorf("%w (the released values are stored: re-run with --epoch %s to finish publishing them, without a new charge)", err, sum.Epoch)
	}
	sum.WriteProperty, sum.NodePropertiesWritten, sum.WriteMillis = rec.WriteProperty, st.NodePropertiesWritten, st.WriteMillis
	g.logger.Info("written", "runId", run.ID(), "nodePropertiesWritten", st.NodePropertiesWritten, "writeMillis", st.WriteMillis)
	return nil
}

// republish handles a release of an epoch that a run already charged:
// succeeded → nothing to do (exit 0); failed, interrupted or abandoned
// with stored values → resume that run and write exactly its values (no
// charge, no draw); anything else cannot be completed without a new charge.
func republish(ctx context.Context, opts *releaseOptions, client *connector.Client, prev *connector.RunRecord, sum *releaseSummary) error {
	g := opts.g
	cfg := &g.cfg.Config
	sum.RunID, sum.Sigma, sum.Rho, sum.Delta2, sum.ReleaseID = prev.RunID, prev.Sigma, prev.Rho, prev.Delta2, prev.ReleaseID
	sum.WriteProperty, sum.NodeCount, sum.RelationshipCount = prev.WriteProperty, prev.NodeCount, prev.RelationshipCount
	sum.Mechanism, _ = prev.Extra["mechanism"].(string)
	sum.Delta2Exact, _ = prev.Extra["delta2Exact"].(bool)
	sum.SensitivityMethod, _ = prev.Extra["sensitivityMethod"].(string)
	switch job.Next(prev, cfg.Write.WriteProperty, time.Now()) {
	case job.OtherProperty:
		return inputErrorf("epoch %q of scope %q was released by run %s to %q, not %q: use a new --epoch (a new charge) or --write-property %s",
			sum.Epoch, sum.Scope, prev.RunID, prev.WriteProperty, cfg.Write.WriteProperty, prev.WriteProperty)
	case job.AlreadyPublished:
		sum.AlreadyPublished = true
		sum.NodePropertiesWritten = 0
		g.logger.Info("epoch already published: nothing to do", "runId", prev.RunID, "epoch", sum.Epoch)
		return nil
	case job.Overwritten:
		return chargedError{epoch: sum.Epoch, err: fmt.Errorf("epoch %q was published by run %s and then overwritten by run %s", sum.Epoch, prev.RunID, prev.SupersededBy)}
	}
	run, rel, err := writeback.Resume(ctx, client, prev, opts.lease)
	var busy *connector.RunStateError
	var notStored *writeback.NotStoredError
	switch {
	case errors.As(err, &busy) && busy.Status == connector.StatusRunning:
		return fmt.Errorf("%w: run %s may still be publishing epoch %q (its lease expires at %s); re-run after that to finish it",
			err, prev.RunID, sum.Epoch, prev.LeaseExpiresAt.Format(time.RFC3339))
	case errors.As(err, &notStored):
		return chargedError{epoch: sum.Epoch, err: notStored.Err}
	case err != nil:
		return err
	}
	g.logger.Info("resuming the publication of a charged epoch (no new charge, no new noise)", "runId", prev.RunID,
		"epoch", sum.Epoch, "attempt", run.Record.Attempts)
	sum.Resumed = true
	sum.Mechanism, sum.Keyed = rel.Meta.Mechanism, rel.Meta.Keyed
	if err := publish(ctx, opts, client, run, rel, sum); err != nil {
		_ = run.Fail(ctx, err) // best effort, as in writeback.Resume
		return err
	}
	return nil
}

// existingReleaseFile applies the rule that a release file is never
// overwritten, checked under the --out lock before the ledger is touched:
// a file at --out holding this scope's epoch is this release, already
// published (done: exit 0, nothing charged, the file unchanged — a re-run
// of a file release is idempotent); any other file there is refused
// (exit 3), since replacing it would lose a published release (or
// whatever else it holds). Without --epoch every run is a new epoch, so a
// second run to the same --out is refused, never charged twice.
func existingReleaseFile(opts *releaseOptions, in *releaseInputs, sum *releaseSummary) (done bool, err error) {
	if _, err := os.Stat(opts.out); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	prev, err := privacy.ReadReleaseFile(opts.out)
	if err != nil {
		return false, inputErrorf("--out %s exists and is not a release file graphcloak can read (%v): a release never overwrites a file; give another --out", opts.out, err)
	}
	if prev.Meta.Scope == sum.Scope && prev.Meta.Epoch == sum.Epoch {
		if in.isDB { // the database's run records decide (republish)
			return false, nil
		}
		return true, alreadyPublishedFile(opts, sum, nil)
	}
	return false, inputErrorf("--out %s already holds release %s (scope %q, epoch %q): a release file is never overwritten; give another --out (e.g. one per epoch), or re-run with --epoch %s to confirm it is published",
		opts.out, prev.Meta.ReleaseID, prev.Meta.Scope, prev.Meta.Epoch, prev.Meta.Epoch)
}

// alreadyPublishedFile: a file release of a charged epoch whose output is
// already at --out is a no-op success; otherwise the charge cannot be
// re-published here.
func alreadyPublishedFile(opts *releaseOptions, sum *releaseSummary, cause error) error {
	prev, err := privacy.ReadReleaseFile(opts.out)
	if err == nil && prev.Meta.Scope == sum.Scope && prev.Meta.Epoch == sum.Epoch {
		sum.AlreadyPublished, sum.Out = true, opts.out
		sum.Sigma, sum.Rho, sum.ReleaseID, sum.Mechanism = prev.Meta.Sigma, prev.Meta.Rho, prev.Meta.ReleaseID, prev.Meta.Mechanism
		sum.Delta2, sum.Delta2Exact, sum.SensitivityMethod = prev.Meta.Sensitivity, prev.Meta.SensitivityExact, prev.Meta.SensitivityMethod
		sum.NodeCount = prev.Meta.N
		opts.g.logger.Info("epoch already published to --out: nothing to do", "epoch", sum.Epoch, "out", opts.out)
		return nil
	}
	return chargedError{epoch: sum.Epoch, err: fmt.Errorf("%w; its release file is not at %s", cause, opts.out)}
}

// chargedError: the epoch was charged but its values cannot be published
// (exit code 7). Publishing the data again needs a new epoch and a new
// charge; never a re-draw of the same epoch.
type chargedError struct {
	epoch string
	err   error
}

func (e chargedError) Error() string {
	return fmt.Sprintf("epoch %q is charged but its values cannot be published: %v (release under a new --epoch; that costs ρ again)", e.epoch, e.err)
}

func (e chargedError) Unwrap() error    { return e.err }
func (chargedError) Kind() errkind.Kind { return errkind.Charged }

// readingSpread is max − min of the readings (0 for one reading).
func readingSpread(y []float64) float64 {
	if len(y) == 0 {
		return 0
	}
	lo, hi := y[0], y[0]
	for _, v := range y {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi - lo
}

// dryRunRelease prints the plan: counts, method, memory and time, σ. Δ2 is
// computed exactly when the model says it takes under 10 s; otherwise the
// proven bound α√2 is shown (and σ for it, an upper bound).
func dryRunRelease(ctx context.Context, opts *releaseOptions, sum *releaseSummary, lg *loadedGraph, mech privacy.Mechanism) error {
	cfg := &opts.g.cfg.Config
	tau := cfg.Privacy.Tau + opts.smooth // the released model's τ
	job := graphcloak.EstimateJob{Graph: lg.Graph, Tau: tau, Alpha: cfg.Privacy.Alpha,
		Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta, Mechanism: mech, Sensitivity: opts.certified}
	plan, err := graphcloak.Estimate(job)
	if err != nil {
		return err
	}
	if job.Sensitivity == nil && plan.SecondsEstimate < 10 && lg.Graph.NumEdges() > 0 {
		// The release's own options, budget included, so that the dry run
		// shows the Δ2 and σ the release would use.
		s, err := graphcloak.Sensitivity(ctx, lg.Graph, tau, cfg.Privacy.Alpha,
			sensitivity.Options{Progress: opts.g.progress("Δ2"), TimeBudget: opts.timeBudget})
		if err != nil {
			return err
		}
		job.Sensitivity = &s
		if plan, err = graphcloak.Estimate(job); err != nil {
			return err
		}
		sum.SensitivityMethod = s.Method
	}
	sum.Plan = plan
	sum.Delta2, sum.Delta2Exact, sum.Sigma, sum.Rho, sum.Mechanism = plan.Delta2, plan.Delta2Exact, plan.Sigma, plan.Rho, plan.Mechanism
	if opts.forecastTrials > 0 && lg.Graph.NumEdges() > 0 {
		sum.Forecast, err = forecastRelease(ctx, opts.g, lg.Graph, tau, cfg.Privacy.Alpha, cfg.Privacy.Epsilon,
			cfg.Privacy.Delta, plan.Sigma, cfg.Recovery.Estimator, uint64(cfg.Write.RandomSeed), opts.forecastTrials, plan.SecondsEstimate)
	}
	return err
}

// readReadings reads the raw readings CSV from a file or, for "-", stdin.
func readReadings(stdin io.Reader, path string, header csvin.Header) (map[string]float64, error) {
	if path == "-" {
		return graphcloak.ReadValuesHeader(stdin, header)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, inputErrorf("--values: %w", err)
	}
	defer f.Close()
	return graphcloak.ReadValuesHeader(f, header)
}

// openReleaseLedger opens the configured ledger (Neo4j needs client) and
// checks that the release's scope exists. A release never creates, raises
// or resets a budget: a missing ledger or scope is refused with the
// budget --init command to run, and --epsilon-total/--delta-total are
// ignored (with a warning) when given.
func openReleaseLedger(ctx context.Context, g *globalOptions, client *connector.Client) (privacy.Ledger, error) {
	cfg := &g.cfg.Config
	if g.cfg.Sources["privacy.epsilonTotal"] == config.FromFlag || g.cfg.Sources["privacy.deltaTotal"] == config.FromFlag {
		g.logger.Warn("--epsilon-total/--delta-total are ignored by release: budgets are set once, by budget --init")
	}
	l, err := openLedger(ctx, cfg, client)
	if err != nil {
		return nil, err
	}
	if _, err := l.Balance(ctx, cfg.Privacy.Scope); err != nil {
		return nil, withInitHint(cfg, err)
	}
	return l, nil
}

func printReleaseSummary(g *globalOptions, out io.Writer, s *releaseSummary) error {
	if g.output == "json" {
		return printJSON(out, s)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\n", k, v) }
	if s.DryRun {
		row("dry run", "nothing written, charged or drawn")
	}
	if s.AlreadyPublished {
		row("already published", fmt.Sprintf("epoch %s was charged and published before: nothing charged or drawn now", s.Epoch))
	}
	if s.RunID != "" {
		row("run id", s.RunID)
	}
	row("graph", s.Graph)
	row("values from", s.ValuesFrom)
	row("nodes", s.NodeCount)
	row("relationships", s.RelationshipCount)
	if s.Plan != nil {
		row("method", s.Plan.Method)
		row("memory estimate", fmt.Sprintf("%.1f MiB", float64(s.Plan.BytesEstimate)/(1<<20)))
		row("time estimate", fmt.Sprintf("%.2g s", s.Plan.SecondsEstimate))
		if s.TimeBudgetSeconds > 0 {
			row("time budget", budgetVerdict(s.TimeBudgetSeconds, s.Plan.SecondsEstimate, s.Plan.Method))
		}
	}
	d2 := fmt.Sprintf("%.6g", s.Delta2)
	if !s.Delta2Exact {
		d2 += " (upper bound)"
	}
	row("Δ2", d2)
	if s.SensitivityMethod != "" {
		row("sensitivity method", s.SensitivityMethod)
	}
	row("σ", fmt.Sprintf("%.6g", s.Sigma))
	row("ρ (zCDP)", fmt.Sprintf("%.6g", s.Rho))
	row("ε, δ", fmt.Sprintf("%g, %g", s.Epsilon, s.Delta))
	row("mechanism", s.Mechanism)
	forecastRows(row, s.Forecast)
	row("noise", map[bool]string{true: "keyed (ChaCha20)", false: "crypto/rand"}[s.Keyed])
	row("ledger", fmt.Sprintf("%s (scope %s)", s.Ledger, s.Scope))
	if s.Epoch != "" {
		row("epoch", s.Epoch)
	}
	if s.ReleaseID != "" {
		row("release id", s.ReleaseID)
	}
	if s.WriteProperty != "" {
		row("written", fmt.Sprintf("%d properties to %s", s.NodePropertiesWritten, s.WriteProperty))
	}
	if s.Out != "" {
		row("release file", s.Out)
	}
	if !s.DryRun {
		row("compute / write", fmt.Sprintf("%d ms / %d ms", s.ComputeMillis, s.WriteMillis))
	}
	return tw.Flush()
}

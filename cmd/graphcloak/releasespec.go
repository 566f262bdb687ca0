package main

import (
	"context"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/schedule"
	"github.com/graphcloak/graphcloak/stores"
)

// This file turns the release flags (release's own, and those serve
// gives each slot) into a job.ReleaseSpec, prepares the release file,
// opens the stores (stores.Open) and plans and executes the job on them
// (Stores.RunRelease).
// Everything a release decides lives in job.

// releaseInputs are a release's local inputs, read before anything is
// connected: the spec and the raw readings of --values.
type releaseInputs struct {
	spec     job.ReleaseSpec
	readings map[string]float64 // raw readings from --values, or nil
}

// releaseOnce reads the release's inputs and releases (stores.Open, then Stores.RunRelease):
// planned and, unless it is a dry run, executed. Everything deferred
// after the run (closing the connection, the job's failure record and
// balance) shares one bookkeeping deadline.
func releaseOnce(ctx context.Context, opts *releaseOptions) (_ *job.ReleaseSummary, err error) {
	g := opts.g
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	opt := storesOptions(g, after, stores.Options{Neo4j: opts.graph == stores.Neo4jSpec || g.cfg.Privacy.Ledger == "neo4j", Ledger: ledgerMode(opts.dryRun)})
	in, err := checkRelease(opts)
	if err != nil {
		return nil, err
	}
	spec := in.spec
	spec.RunID = job.NewRunID()
	env := runEnv(g, after)
	if spec.Out != "" && !spec.DryRun { // the release file prepared before anything is opened
		if env.File, err = job.PrepareFile(ctx, spec.Out, spec.Wait, env.Logger); err != nil {
			return nil, err
		}
		defer env.File.Abort()
	}
	defer addInitHint(&g.cfg.Config, &err) // the ledger is opened from here on
	st, err := stores.Open(ctx, g.cfg, opt)
	if err != nil {
		return nil, err
	}
	defer st.Close(after.Context())
	return st.RunRelease(ctx, spec, in.readings, env)
}

// checkRelease makes the job's spec from release's flags (releaseSpec),
// completes it from its local files (the keys, the certificate) and reads
// the raw readings of --values.
func checkRelease(opts *releaseOptions) (*releaseInputs, error) {
	spec, err := releaseSpec(opts)
	if err != nil {
		return nil, err
	}
	if err := jobfiles.ReadReleaseInputs(&opts.g.cfg.Config, &spec); err != nil {
		return nil, err
	}
	in := &releaseInputs{spec: spec}
	if read := inputfiles.ReadingsFrom(opts.stdin, opts.values, opts.g.cfg.Input.Header); read != nil {
		if in.readings, err = read(); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// releaseSpec is the job's spec of release's flags and configuration,
// once their combination is checked; the files it names are not read.
func releaseSpec(opts *releaseOptions) (job.ReleaseSpec, error) {
	cfg := &opts.g.cfg.Config
	epoch := cfg.Privacy.Epoch
	if epoch == "auto" && (opts.slot < time.Minute || opts.slot > 366*24*time.Hour) {
		return job.ReleaseSpec{}, errkind.Inputf("--slot must be between 1m and 366 days, got %v", opts.slot)
	}
	spec := job.ReleaseSpec{Graph: opts.graph, Neo4j: opts.graph == stores.Neo4jSpec,
		Database: cfg.Neo4j.Database, WriteProperty: cfg.Write.WriteProperty, Out: opts.out,
		LedgerKind: cfg.Privacy.Ledger, Scope: cfg.Privacy.Scope, Epoch: epoch,
		Tau: cfg.Privacy.Tau, Alpha: cfg.Privacy.Alpha, Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta,
		CertificatePath: opts.sensitivityCert, CachePath: opts.sensitivityCache, TimeBudget: opts.timeBudget,
		Software: buildinfo.Read().String(), Lease: opts.lease, Wait: opts.wait, DryRun: opts.dryRun,
		ForecastTrials: opts.forecastTrials, Estimator: cfg.Recovery.Estimator, ForecastSeed: uint64(cfg.Write.RandomSeed),
		RefuseAtChance: cfg.Privacy.RefuseAtChance, SourceMass: opts.sourceMass, Communities: cfg.Recovery.Communities}
	spec.Projection = cfg.Neo4jProjection()
	spec.Projection.ValueProperty = cfg.Projection.ValueProperty
	if err := checkReleaseFlags(opts, &spec); err != nil {
		return job.ReleaseSpec{}, err
	}
	if err := useWorkStore(opts.g, opts.cacheDir, &spec); err != nil {
		return job.ReleaseSpec{}, err
	}
	spec.ValuesFrom = "property:" + spec.Projection.ValueProperty
	if opts.values != "" {
		spec.ValuesFrom = "csv:" + opts.values
	}
	var err error
	if spec.Smooth, spec.SmoothAuto, err = job.ParseSmooth(opts.smooth); err != nil { // "" in serve's releases: none
		return job.ReleaseSpec{}, err
	}
	if epoch == "auto" {
		now := time.Now
		if opts.now != nil {
			now = opts.now
		}
		spec.Epoch = schedule.EpochName(now(), opts.slot)
	}
	return spec, nil
}

// checkReleaseFlags checks the combination of flags (the inputs':
// job.ReleaseSpec.CheckInputs) and the partition the forecasts score
// (--communities, checked as locate checks it).
func checkReleaseFlags(opts *releaseOptions, spec *job.ReleaseSpec) error {
	if err := checkForecastTrials(opts.forecastTrials); err != nil {
		return err
	}
	if spec.RefuseAtChance && opts.forecastTrials == 0 {
		return errkind.Inputf("--refuse-at-chance decides on a forecast: give --forecast-trials > 0 (it is 0)")
	}
	if opts.graph == "" {
		return graphRequired()
	}
	if err := spec.CheckInputs(opts.values, opts.estimate); err != nil {
		return err
	}
	c := &locateOptions{communities: spec.Communities, resolution: 1}
	return checkCommunities(c, newLocateInputs(opts.graph, spec.Communities))
}

// releaseOptions are the release command's own flags; the rest (privacy
// parameters, projection, write-back) are configuration keys.
type releaseOptions struct {
	g      *globalOptions
	stdin  io.Reader
	graph  string
	values string // FILE or "-"
	out    string
	dryRun bool
	// estimate: only the modelled time of the steps (--estimate).
	estimate bool
	// forecastTrials are the dry run's simulated sources (0: no forecast),
	// and those of privacy.refuseAtChance's forecast.
	forecastTrials int
	// sourceMass is the stated total source mass (--source-mass; 0: none
	// stated) the dry run's and --refuse-at-chance's verdict simulates.
	sourceMass float64
	// smooth is extra diffusion τ′ before the noise (ReleaseRequest.Smooth),
	// or auto (job.ReleaseSpec.SmoothAuto).
	smooth string
	lease  time.Duration
	// Δ2: a stored certificate (verified against the graph), or a time
	// budget for computing it (the best proven bound reached).
	sensitivityCert string
	timeBudget      time.Duration
	// sensitivityCache: a certificate file reused while it verifies
	// against the graph (and this software), rewritten when it does not.
	sensitivityCache string
	// cacheDir is the work store the Δ2 certificate is kept in when
	// neither of those is given (--cache-dir; "": the default store).
	cacheDir string
	// slot is the schedule granularity of --epoch auto; now the clock.
	slot time.Duration
	now  func() time.Time
	// wait is how long to wait for another live run holding the scope
	// (or publishing this epoch, or writing the same --out file) before
	// giving up with exit 8.
	wait time.Duration
}

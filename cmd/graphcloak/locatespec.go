package main

import (
	"context"
	"io"
	"strings"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/internal/sourceview"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// This file is a localisation's command side, behind the locate command
// and each slot of serve: the flags checked into a job.LocateSpec
// (checkLocate), the per-node file and picture, and the stores opened
// (stores.Open) on which the job is planned and executed (Stores.RunLocate,
// locateOnce). What a
// localisation decides lives in job; the command (locate.go) prints the
// summary.

// locateInputs are a localisation's checked inputs: the job's spec and
// where the communities come from.
type locateInputs struct {
	spec     job.LocateSpec
	isDB     bool
	commKind string // leiden | louvain | gds | property | file
	commArg  string // the property name or path
}

// locateOnce checks the flags (checkLocate), reads the release file,
// opens the per-node CSV and locates (stores.Open, reading the
// --release-run record, then Stores.RunLocate). It returns the summary and where to print
// it (stderr when --out - streams the CSV to stdout). Everything deferred (the failure
// record, closing the connection) shares one bookkeeping deadline.
func locateOnce(ctx context.Context, opts *locateOptions, out io.Writer) (*job.LocateSummary, io.Writer, error) {
	g := opts.g
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	in, err := checkLocate(opts)
	if err != nil {
		return nil, nil, err
	}
	// The release file is read before anything is opened or connected.
	if opts.released != "" {
		if in.spec.Released, err = job.ReadReleased(opts.released); err != nil {
			return nil, nil, err
		}
	}
	in.spec.RunID = job.NewRunID()
	// The per-node CSV is opened before any work; a dry run writes none.
	var csvOut *atomicfile.Output
	if !opts.dryRun {
		if csvOut, out, err = perNodeOutput(g, in.spec.Stream, opts.out, out); err != nil {
			return nil, nil, err
		}
		defer csvOut.Abort()
	}
	opt := storesOptions(g, after, stores.Options{Neo4j: in.isDB, CheckProjection: in.isDB, ReleaseRun: opts.releaseRun})
	env := runEnv(g, after)
	env.ParamName, env.Output = flagName, func(ctx context.Context, lr graphcloak.LocateRequest, res *graphcloak.LocateResult, sum *job.LocateSummary) error {
		return emitLocate(ctx, opts, csvOut, lr, res, sum)
	}
	st, err := stores.Open(ctx, g.cfg, opt) // the release run's record read when opt names one
	if err != nil {
		return nil, nil, err // opens no ledger: no budget to create
	}
	defer st.Close(after.Context())
	sum, err := st.RunLocate(ctx, in.spec, locateCommunities(opts), env)
	if err != nil {
		return nil, nil, err
	}
	return sum, out, nil
}

// perNodeOutput opens where per-node results go as CSV: standard output
// in stream mode (unless -o json, whose summary carries them), the file
// path ("-": standard output), or nowhere (nil). It returns where the
// summary goes: standard error when the CSV is on standard output, so
// that the stream stays CSV.
func perNodeOutput(g *globalOptions, stream bool, path string, out io.Writer) (*atomicfile.Output, io.Writer, error) {
	var csvOut *atomicfile.Output
	switch {
	case stream && g.output != "json":
		csvOut = atomicfile.Stdout(out)
	case path != "":
		var err error
		if csvOut, err = atomicfile.Open("out", path, out); err != nil {
			return nil, nil, err
		}
	}
	if csvOut != nil && csvOut.Stdout() {
		out = g.stderr
	}
	return csvOut, out, nil
}

// emitLocate writes the local outputs of a localisation: the per-node
// CSV (--out, or standard output in stream mode), the picture (--plot),
// and under -o json the noise warning and, in stream mode, every node.
func emitLocate(ctx context.Context, opts *locateOptions, csvOut *atomicfile.Output, lr graphcloak.LocateRequest, res *graphcloak.LocateResult, sum *job.LocateSummary) error {
	g := opts.g
	if res.NoiseDominated && g.output == "json" { // the table says it in its own words
		g.logger.Warn(res.NoiseReason, "basis", res.NoiseBasis, "posteriorToPrior", res.PosteriorToPrior)
	}
	if csvOut != nil {
		if err := csvOut.CommitWith(func(w io.Writer) error { return graphcloak.WriteNodesCSV(w, res.Nodes) }); err != nil {
			return err
		}
		sum.Out = opts.out
	}
	if opts.plot != "" {
		if err := sourceview.Locate(opts.plot, opts.graph, opts.plotValue, lr, res); err != nil {
			return err
		}
		sum.Plot = opts.plot
	}
	if opts.mode == "stream" && g.output == "json" {
		sum.Nodes = res.Nodes
	}
	return ctx.Err()
}

// checkForecastTrials refuses a negative --forecast-trials (0: none).
func checkForecastTrials(n int) error {
	if n < 0 {
		return errkind.Inputf("--forecast-trials must be ≥ 0 (0: no forecast), got %d", n)
	}
	return nil
}

// checkLocate validates locate's flags and makes the job's spec (checked
// again by job.PlanLocate once a --release-run's projection is known).
// It reads nothing: locateOnce reads the release file it names.
func checkLocate(opts *locateOptions) (*locateInputs, error) {
	cfg := &opts.g.cfg.Config
	in := newLocateInputs(opts.graph, opts.communities)
	if err := checkPlotPath(opts.plot); err != nil {
		return nil, err
	}
	if opts.mode != "" && opts.mode != "write" && opts.mode != "stream" { // "": write (serve)
		return nil, errkind.Usagef("--mode must be write or stream, got %q", opts.mode)
	}
	if opts.mode == "stream" && opts.out != "" {
		return nil, errkind.Usagef("--mode stream writes the per-node results to standard output: drop --out")
	}
	if opts.plotValue != "posterior" && opts.plotValue != "released" {
		return nil, errkind.Inputf("--plot-value must be posterior or released, got %q", opts.plotValue)
	}
	if err := checkForecastTrials(opts.forecastTrials); err != nil {
		return nil, err
	}
	if opts.graph == "" {
		return nil, graphRequired()
	}
	if err := job.CheckReleasedSource(in.isDB, opts.released, opts.releasedProperty, opts.releaseRun); err != nil {
		return nil, err
	}
	if err := checkCommunities(opts, in); err != nil {
		return nil, err
	}
	releasedProp, err := job.ReleasedProperty(in.isDB, opts.released, opts.releasedProperty, opts.releaseRun, opts.sigma, cfg.Write.WriteProperty)
	if err != nil {
		return nil, err
	}
	in.spec = locateSpec(opts, in, releasedProp)
	if in.spec.Store, err = workStore(opts.g, opts.privateAnswer.cacheDir); err != nil { // the verdict's forecast is kept there
		return nil, err
	}
	if err := in.spec.Check(); err != nil {
		return nil, err
	}
	return in, nil
}

// newLocateInputs are the inputs of a localisation on graph with
// --communities communities (KIND or KIND:ARG), before the spec is made.
func newLocateInputs(graph, communities string) *locateInputs {
	in := &locateInputs{isDB: graph == stores.Neo4jSpec}
	in.commKind, in.commArg, _ = strings.Cut(communities, ":")
	return in
}

// locateSpec is the job's spec of locate's flags and configuration.
func locateSpec(opts *locateOptions, in *locateInputs, releasedProp string) job.LocateSpec {
	g := opts.g
	cfg := &g.cfg.Config
	s := job.LocateSpec{Graph: opts.graph, Communities: opts.communities, Neo4j: in.isDB,
		Stream: opts.mode == "stream", Database: cfg.Neo4j.Database, Projection: cfg.Neo4jProjection(),
		Properties: job.LocateProperties{Mass: cfg.Write.MassProperty, Community: cfg.Write.CommunityWriteProperty,
			Probability: cfg.Write.ProbabilityProperty, Rank: cfg.Write.RankProperty},
		ReleasedProperty: releasedProp, WriteProperty: cfg.Write.WriteProperty,
		Sigma: opts.sigma, Tau: cfg.Privacy.Tau, TauGiven: g.cfg.Sources["privacy.tau"] != config.FromDefault,
		TauFlag: g.cfg.Sources["privacy.tau"] == config.FromFlag, Estimator: cfg.Recovery.Estimator, Sources: cfg.Recovery.Sources,
		Seed: uint64(cfg.Write.RandomSeed), Resolution: opts.resolution, ForecastTrials: opts.forecastTrials, SourceMass: opts.sourceMass, Lease: connector.DefaultLease,
		DryRun: opts.dryRun}
	if in.commKind == "property" {
		s.CommunityProperty = in.commArg
	}
	return s
}

// checkCommunities checks --communities (and --resolution for
// detection): stores.Communities.Check.
func checkCommunities(opts *locateOptions, in *locateInputs) error {
	c := stores.Communities{Kind: in.commKind, Arg: in.commArg, Resolution: opts.resolution}
	return c.Check(opts.communities, in.isDB)
}

// locateCommunities says where a localisation's (or a private answer's)
// communities come from: --communities, with --resolution and the seed,
// through serve's cache.
func locateCommunities(opts *locateOptions) stores.Communities {
	kind, arg, _ := strings.Cut(opts.communities, ":")
	return stores.Communities{Kind: kind, Arg: arg, Resolution: opts.resolution, Seed: opts.g.cfg.Write.RandomSeed,
		Cache: opts.communityCache, Leiden: opts.privateAnswer.enabled}
}

type locateOptions struct {
	g                *globalOptions
	graph            string
	released         string // release file
	releasedProperty string // Neo4j property holding released values
	releaseRun       string // run id of the release (σ, τ from its run record)
	sigma            float64
	communities      string // leiden | louvain | gds:leiden | gds:louvain | property:NAME | file:PATH
	resolution       float64
	out              string
	plot             string  // picture of the graph
	plotValue        string  // posterior | released
	forecastTrials   int     // simulated trials of the forecast (0: none)
	sourceMass       float64 // --source-mass (0: estimated from the release)
	mode             string  // write | stream
	dryRun           bool    // print the plan: nothing located, charged or written
	estimate         bool    // only the modelled time of the steps (--estimate)
	stdin            io.Reader
	privateAnswer    answerOptions
	communityCache   *stores.CommunityCache // serve: Leiden updated between slots
}

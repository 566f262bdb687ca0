package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/plotting"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// This file is a localisation's command side, behind the locate command
// and each slot of serve: the flags checked into a job.LocateSpec
// (checkLocate), the --release-run record read, the job's wiring — the
// Neo4j client and backend, the loader of the graph, released values and
// communities, the per-node file and picture — and job.PlanLocate then
// job.ExecuteLocate (locateOnce). What a localisation decides lives in
// job; the command (locate.go) prints the summary.

// locateInputs are a localisation's checked inputs: the job's spec and
// where the communities come from.
type locateInputs struct {
	spec     job.LocateSpec
	isDB     bool
	commKind string // leiden | louvain | gds | property | file
	commArg  string // the property name or path
}

// locateOnce checks the flags, opens the per-node CSV, connects (on
// Neo4j, reading the --release-run record), then plans and executes the
// localisation. It returns the summary and where to print it (stderr when
// --out - streams the CSV to stdout). Everything deferred (the failure
// record, closing the connection) shares one bookkeeping deadline.
func locateOnce(ctx context.Context, opts *locateOptions, out io.Writer) (*job.LocateSummary, io.Writer, error) {
	g := opts.g
	after := newAfterRun(ctx)
	defer after.Close()
	in, err := checkLocate(opts)
	if err != nil {
		return nil, nil, err
	}
	// The per-node CSV is opened before any work ("-": standard output,
	// and the summary goes to stderr so the stream stays CSV).
	var csvOut *outputFile
	switch {
	case opts.dryRun: // writes no file
	case in.spec.Stream && g.output != "json":
		csvOut = &outputFile{Writer: out, path: "-"}
	case opts.out != "":
		if csvOut, err = openOutput("out", opts.out, out); err != nil {
			return nil, nil, err
		}
		defer csvOut.Abort()
	}
	if csvOut != nil && csvOut.Stdout() {
		out = g.stderr // the summary must not mix with the CSV
	}
	env := job.Env{Logger: g.logger, Progress: g.progress, Bookkeeping: after.Context}
	var client *connector.Client
	if in.isDB {
		if client, err = connectProjection(ctx, g); err != nil {
			return nil, nil, err
		}
		defer func() { client.Close(after.Context()) }()
		if opts.releaseRun != "" {
			if err := readReleaseRun(ctx, opts, client, &in.spec); err != nil {
				return nil, nil, err
			}
		}
		env.Backend = neo4jBackend(g, client)
	}
	env.LoadReleased = func(ctx context.Context, prop string) (*job.Input, error) {
		return loadInput(ctx, opts, in, client, prop)
	}
	env.Output = func(ctx context.Context, lj graphcloak.LocateJob, res *graphcloak.LocateResult, sum *job.LocateSummary) error {
		return emitLocate(ctx, opts, csvOut, lj, res, sum)
	}
	plan, err := job.PlanLocate(ctx, in.spec, env)
	if err != nil || opts.dryRun {
		return locatePlanSummary(plan), out, err
	}
	sum, err := job.ExecuteLocate(ctx, plan)
	if err != nil {
		return nil, nil, err
	}
	return sum, out, nil
}

// locatePlanSummary is the summary of a plan (nil when there is none).
func locatePlanSummary(p *job.LocatePlan) *job.LocateSummary {
	if p == nil {
		return nil
	}
	return p.Summary
}

// readReleaseRun resolves --release-run (latest: the scope's newest
// succeeded release), takes the projection from its record unless the
// command names one, and reads the record — a succeeded release whose
// values are still bound to it — with the digest of its values into spec.
func readReleaseRun(ctx context.Context, opts *locateOptions, client *connector.Client, spec *job.LocateSpec) error {
	g := opts.g
	cfg := &g.cfg.Config
	id := opts.releaseRun
	if id == "latest" {
		var err error
		if id, err = latestRelease(ctx, client, cfg); err != nil {
			return err
		}
	}
	rr, digest, err := releaseRunRecord(ctx, g, client, id)
	if err != nil {
		return err
	}
	spec.Projection = stores.ProjectionOf(cfg)
	spec.Release, spec.ReleaseDigest, spec.ReleaseHint = rr, digest, stores.ProjectionHint(stores.ProjectionOf(cfg), rr.Projection)
	return nil
}

// emitLocate writes the local outputs of a localisation: the per-node
// CSV (--out, or standard output in stream mode), the picture (--plot),
// and under -o json the noise warning and, in stream mode, every node.
func emitLocate(ctx context.Context, opts *locateOptions, csvOut *outputFile, lj graphcloak.LocateJob, res *graphcloak.LocateResult, sum *job.LocateSummary) error {
	g := opts.g
	if res.NoiseDominated && g.output == "json" { // the table says it in its own words
		g.logger.Warn(res.NoiseReason, "basis", res.NoiseBasis, "posteriorToPrior", res.PosteriorToPrior)
	}
	if csvOut != nil {
		if err := writeLocateCSV(csvOut, res.Nodes); err != nil {
			return err
		}
		sum.Out = opts.out
	}
	if opts.plot != "" {
		if err := plotLocate(opts, lj.Graph, res, lj.Released, lj.Tau); err != nil {
			return err
		}
		sum.Plot = opts.plot
	}
	if opts.mode == "stream" && g.output == "json" {
		sum.Nodes = res.Nodes
	}
	return ctx.Err()
}

// checkLocate validates locate's flags before any connection, reads the
// release file when one is given, and makes the job's spec (checked
// again by job.PlanLocate once a --release-run's projection is known).
// checkForecastTrials refuses a negative --forecast-trials (0: none).
func checkForecastTrials(n int) error {
	if n < 0 {
		return inputErrorf("--forecast-trials must be ≥ 0 (0: no forecast), got %d", n)
	}
	return nil
}

func checkLocate(opts *locateOptions) (*locateInputs, error) {
	cfg := &opts.g.cfg.Config
	in := &locateInputs{isDB: opts.graph == stores.Neo4jSpec}
	if err := checkPlotPath(opts.plot); err != nil {
		return nil, err
	}
	if opts.mode != "" && opts.mode != "write" && opts.mode != "stream" { // "": write (serve)
		return nil, usageErrorf("--mode must be write or stream, got %q", opts.mode)
	}
	if opts.mode == "stream" && opts.out != "" {
		return nil, usageErrorf("--mode stream writes the per-node results to standard output: drop --out")
	}
	if opts.plotValue != "posterior" && opts.plotValue != "released" {
		return nil, inputErrorf("--plot-value must be posterior or released, got %q", opts.plotValue)
	}
	if err := checkForecastTrials(opts.forecastTrials); err != nil {
		return nil, err
	}
	in.commKind, in.commArg, _ = strings.Cut(opts.communities, ":")
	releasedProp := opts.releasedProperty
	switch {
	case opts.graph == "":
		return nil, usageErrorf("--graph is required (neo4j, a generator such as karate, or file:PATH)")
	case opts.released != "" && releasedProp != "":
		return nil, usageErrorf("give either --release FILE or --released-property P, not both")
	case !in.isDB && opts.released == "":
		return nil, usageErrorf("--release FILE is required for a graph outside Neo4j")
	case !in.isDB && (releasedProp != "" || opts.releaseRun != ""):
		return nil, usageErrorf("--released-property and --release-run need --graph neo4j")
	}
	if err := checkCommunities(opts, in); err != nil {
		return nil, err
	}
	if in.isDB && opts.released == "" && releasedProp == "" && opts.releaseRun == "" {
		releasedProp = cfg.Write.WriteProperty
	}
	if releasedProp != "" {
		if !config.ValidIdentifier(releasedProp) {
			return nil, inputErrorf("--released-property: %q is not a valid property name", releasedProp)
		}
		if opts.releaseRun == "" && !(opts.sigma > 0 && !math.IsInf(opts.sigma, 0)) {
			return nil, usageErrorf("released values from a property need their σ: give --sigma S (> 0) or --release-run RUNID")
		}
	}
	in.spec = locateSpec(opts, in, releasedProp)
	if err := in.spec.Check(); err != nil {
		return nil, err
	}
	if opts.released != "" {
		rel, err := privacy.ReadReleaseFile(opts.released)
		if err != nil {
			return nil, inputErrorf("--release: %w", err)
		}
		in.spec.Released = rel
	}
	return in, nil
}

// locateSpec is the job's spec of locate's flags and configuration.
func locateSpec(opts *locateOptions, in *locateInputs, releasedProp string) job.LocateSpec {
	g := opts.g
	cfg := &g.cfg.Config
	s := job.LocateSpec{RunID: opts.runID, Graph: opts.graph, Communities: opts.communities, Neo4j: in.isDB,
		Stream: opts.mode == "stream", Database: cfg.Neo4j.Database, Projection: stores.ProjectionOf(cfg),
		Properties: job.LocateProperties{Mass: cfg.Write.MassProperty, Community: cfg.Write.CommunityWriteProperty,
			Probability: cfg.Write.ProbabilityProperty, Rank: cfg.Write.RankProperty},
		ReleasedProperty: releasedProp, WriteProperty: cfg.Write.WriteProperty,
		Sigma: opts.sigma, Tau: cfg.Privacy.Tau, TauGiven: g.cfg.Sources["privacy.tau"] != config.FromDefault,
		TauFlag: g.cfg.Sources["privacy.tau"] == config.FromFlag, Estimator: cfg.Recovery.Estimator, Sources: cfg.Recovery.Sources,
		Seed: uint64(cfg.Write.RandomSeed), Resolution: opts.resolution, ForecastTrials: opts.forecastTrials, SourceMass: opts.sourceMass, Lease: connector.DefaultLease,
		DryRun: opts.dryRun}
	if s.RunID == "" {
		s.RunID = stores.NewRunID()
	}
	if in.commKind == "property" {
		s.CommunityProperty = in.commArg
	}
	return s
}

// checkCommunities checks --communities (and --resolution for detection).
func checkCommunities(opts *locateOptions, in *locateInputs) error {
	switch kind, arg := in.commKind, in.commArg; {
	case (kind == "leiden" || kind == "louvain") && arg == "":
		return job.CheckPositive("resolution", opts.resolution)
	case kind == "file" && arg != "":
		return nil
	case kind == "gds" && (arg == "leiden" || arg == "louvain"):
		if !in.isDB {
			return usageErrorf("--communities gds:%s runs in Neo4j Graph Data Science and needs --graph neo4j", arg)
		}
		if arg == "louvain" && opts.resolution != 1 {
			return usageErrorf("--resolution: gds:louvain has no resolution parameter; use gds:leiden")
		}
		return job.CheckPositive("resolution", opts.resolution)
	case kind == "property" && arg != "":
		if !in.isDB {
			return usageErrorf("--communities property:NAME needs --graph neo4j")
		}
		if !config.ValidIdentifier(arg) {
			return inputErrorf("--communities: %q is not a valid property name", arg)
		}
		return nil
	}
	return usageErrorf("--communities must be leiden, louvain, gds:leiden, gds:louvain, property:NAME or file:PATH, got %q", opts.communities)
}

// connectProjection validates the configured projection and connects.
func connectProjection(ctx context.Context, g *globalOptions) (*connector.Client, error) {
	if err := stores.ProjectionOf(&g.cfg.Config).Validate(); err != nil {
		return nil, err
	}
	return stores.ConnectLogged(ctx, &g.cfg.Config, g.logger)
}

// neo4jBackend is the job backend of a release, a localisation or a
// private answer on client.
func neo4jBackend(g *globalOptions, client *connector.Client) *stores.Neo4j {
	cfg := &g.cfg.Config
	return &stores.Neo4j{Client: client, Database: cfg.Neo4j.Database, Projection: stores.ProjectionOf(cfg),
		Write: connector.WriteOptions{BatchSize: cfg.Write.BatchSize, Concurrency: cfg.Write.Concurrency}}
}

// noReleaseError: --release-run latest found no succeeded release; prev
// is the scope's newest release that another run superseded, by the run
// by (nil when none did).
type noReleaseError struct {
	scope    string
	prev, by *connector.RunRecord
}

func (e *noReleaseError) Error() string {
	if e.prev == nil {
		return fmt.Sprintf("--release-run latest: scope %q has no succeeded release yet", e.scope)
	}
	msg := fmt.Sprintf("--release-run latest: scope %q has no published release: its newest, run %s (epoch %s), was superseded by run %s",
		e.scope, e.prev.RunID, e.prev.Epoch, e.prev.SupersededBy)
	if e.by == nil {
		return msg + " (whose record is gone), which wrote the same property; release again (or to another --write-property)"
	}
	msg += fmt.Sprintf(" (%s of scope %q", e.by.Command, e.by.Scope)
	if e.by.Epoch != "" {
		msg += ", epoch " + e.by.Epoch
	}
	msg += fmt.Sprintf(", which wrote %q on the same nodes)", e.prev.WriteProperty)
	if e.by.Scope != e.scope {
		msg += fmt.Sprintf("; locate that release with --scope %s --release-run latest, or give scope %s its own --write-property", e.by.Scope, e.scope)
	} else {
		msg += fmt.Sprintf("; locate it with --release-run %s", e.by.RunID)
	}
	return msg
}

func (*noReleaseError) Kind() errkind.Kind { return errkind.BadInput }

// latestRelease returns the run id of the newest succeeded release of the
// configured scope (--release-run latest).
func latestRelease(ctx context.Context, client *connector.Client, cfg *config.Config) (string, error) {
	runs, err := client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, 0)
	if err != nil {
		return "", err
	}
	return latestReleaseOf(runs, cfg.Privacy.Scope, func(id string) (*connector.RunRecord, error) {
		return client.ReadRun(ctx, cfg.Neo4j.Database, id)
	})
}

// latestReleaseOf is latestRelease over the scope's runs, newest first:
// without a succeeded release, the error names the run (and its scope)
// that superseded the newest one, read by read.
func latestReleaseOf(runs []*connector.RunRecord, scope string, read func(string) (*connector.RunRecord, error)) (string, error) {
	var prev *connector.RunRecord
	for _, r := range runs { // newest first
		if r.Command != "release" {
			continue
		}
		if r.Status == connector.StatusSucceeded {
			return r.RunID, nil
		}
		if r.Status == connector.StatusSuperseded && prev == nil && r.SupersededBy != "" {
			prev = r
		}
	}
	e := &noReleaseError{scope: scope, prev: prev}
	if prev != nil {
		if by, err := read(prev.SupersededBy); err == nil {
			e.by = by
		}
	}
	return "", e
}

// loadInput loads the graph with the values of valueProp (Neo4j) and
// the communities --communities names.
func loadInput(ctx context.Context, opts *locateOptions, in *locateInputs, client *connector.Client, valueProp string) (*job.Input, error) {
	cfg := &opts.g.cfg.Config
	pull, endPull := opts.g.pullProgress()
	lopt := stores.LoadOptions{Client: client, ValueProperty: valueProp, Progress: pull, Logger: opts.g.logger}
	if in.commKind == "property" {
		lopt.CommunityProperty = in.commArg
	}
	lg, err := stores.LoadGraph(ctx, cfg, opts.graph, lopt)
	endPull()
	if err != nil {
		return nil, err
	}
	input := &job.Input{Graph: lg.Graph}
	if lg.Pulled != nil {
		input.Readings = lg.Pulled.Values
	}
	input.Partition, input.Names, err = partitionOf(ctx, opts, in, client, lg, uint64(cfg.Write.RandomSeed))
	return input, err
}

// partitionOf returns the communities --communities names for the loaded
// graph (Leiden through serve's cache, Louvain, a file, GDS or a node
// property), with their names where they have them.
func partitionOf(ctx context.Context, opts *locateOptions, in *locateInputs, client *connector.Client, lg *stores.Graph, seed uint64) ([]int, []string, error) {
	cfg := &opts.g.cfg.Config
	switch in.commKind {
	case "leiden":
		p, err := cachedLeiden(opts.g, opts, lg.Graph, seed)
		return p, nil, err
	case "louvain":
		p, err := community.Louvain(lg.Graph, opts.resolution, seed)
		return p, nil, err
	case "file":
		return community.LoadAssignment(in.commArg, lg.Graph)
	case "gds":
		return gdsPartition(ctx, cfg, client, lg.Graph, in.commArg, opts.resolution, int64(cfg.Write.RandomSeed))
	case "property":
		return propertyPartition(lg)
	}
	return nil, nil, nil
}

// propertyPartition returns the communities read from the projection's
// community property (--communities property:NAME).
func propertyPartition(lg *stores.Graph) ([]int, []string, error) {
	graph := lg.Graph
	byKey := make(map[string]string, graph.N())
	names := communityNames(lg.Pulled.Communities)
	for i := 0; i < graph.N(); i++ {
		byKey[graph.Key(i)] = names[i]
	}
	return community.FromAssignment(graph, byKey)
}

// gdsPartition runs algo (leiden, louvain) in Neo4j GDS on the configured
// projection and returns the partition of graph it found.
func gdsPartition(ctx context.Context, cfg *config.Config, client *connector.Client, graph *laplacian.Graph, algo string, resolution float64, seed int64) ([]int, []string, error) {
	ids, err := client.GDSCommunities(ctx, cfg.Neo4j.Database, stores.ProjectionOf(cfg), algo, connector.GDSOptions{Resolution: resolution, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	byKey := make(map[string]string, len(ids))
	for k, c := range ids {
		byKey[k] = strconv.FormatInt(c, 10)
	}
	return community.FromAssignment(graph, byKey)
}

func writeLocateCSV(f *outputFile, nodes []graphcloak.NodeResult) error {
	w := csv.NewWriter(f)
	_ = w.Write([]string{"key", "mass", "weight", "community", "probability", "rank"})
	for _, n := range nodes {
		_ = w.Write([]string{n.Key, strconv.FormatFloat(n.Mass, 'g', -1, 64), strconv.FormatFloat(n.Weight, 'g', -1, 64),
			n.Community, strconv.FormatFloat(n.Probability, 'g', -1, 64), strconv.Itoa(n.Rank)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return f.Commit()
}

// plotLocate draws the graph with the located communities; nodes are
// coloured by the posterior or by the released values.
func plotLocate(opts *locateOptions, graph *laplacian.Graph, res *graphcloak.LocateResult, rel *privacy.Released, tau float64) error {
	var released []float64
	if opts.plotValue == "released" {
		released = make([]float64, graph.N())
		for i, k := range rel.Keys {
			if j, ok := graph.IndexOf(k); ok && i < len(rel.Values) {
				released[j] = rel.Values[i]
			}
		}
	}
	v := viewOfLocate(graph, res, released)
	v.Title = fmt.Sprintf("%s: likely source communities (%s estimator)", opts.graph, res.Estimator)
	if res.Report.NoSource {
		v.Title = fmt.Sprintf("%s: no detectable source", opts.graph)
	}
	v.Verdict = res.NoiseReason
	v.Caption = privacyCaption(rel.Meta.Epsilon, rel.Meta.Delta, tau, res.Sigma)
	return plotting.GraphPicture(opts.plot, v)
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
	runID            string  // names the run when set (serve); else a fresh id
	forecastTrials   int     // simulated trials of the forecast (0: none)
	sourceMass       float64 // --source-mass (0: estimated from the release)
	mode             string  // write | stream
	dryRun           bool    // print the plan: nothing located, charged or written
	stdin            io.Reader
	privateAnswer    answerOptions
	communityCache   *communityCache // serve: Leiden updated between slots
}

// communityNames renders int64 community ids read from Neo4j as names.
func communityNames(ids []int64) []string {
	out := make([]string, len(ids))
	for i, c := range ids {
		out[i] = strconv.FormatInt(c, 10)
	}
	return out
}

package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/internal/plotting"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/writeback"
)

// This file is a localisation's work behind the locate command, and
// behind each slot of serve: validate the flags (checkLocate), connect,
// start the run record, load the graph and the released values, locate,
// and write the results bound to the run (locateOnce). The command itself
// (locate.go) parses the flags and prints the summary.

// locateInputs are locate's inputs after validation: where the released
// values and σ, τ come from, and where the communities come from.
type locateInputs struct {
	isDB         bool
	releasedProp string            // Neo4j property with the released values
	rel          *privacy.Released // from --released FILE, else nil
	commKind     string            // leiden | louvain | gds | property | file
	commArg      string            // the property name or path
	sigma, tau   float64
	// releaseGraph is the fingerprint of the graph the release (run) was
	// made on, when its record has one: the graph read must match it.
	releaseGraph *laplacian.Fingerprint
	// releaseHint names the projection flags that differ from the
	// release's (projectionHint), for the error when the graphs differ.
	releaseHint string
	// release is the --release-run record with its metadata and the
	// digest of its values (releaseDigest): the values read must match.
	release       *connector.RunRecord
	releaseMeta   *privacy.ReleaseMeta
	releaseDigest string
}

// locateOnce validates everything, then (on Neo4j) connects and starts a run
// record, loads the graph and released values, locates, and writes the
// per-node results with the run record last. It returns the summary and
// where to print it (stderr when --out - streams the CSV to stdout).
func locateOnce(ctx context.Context, opts *locateOptions, out io.Writer) (summary *locateSummary, _ io.Writer, err error) {
	g := opts.g
	after := newAfterRun(ctx) // one deadline for everything deferred below
	defer after.Close()
	in, err := checkLocate(opts)
	if err != nil {
		return nil, nil, err
	}
	// The per-node CSV is opened before any work ("-": standard output,
	// and the summary goes to stderr so the stream stays CSV).
	var csvOut *outputFile
	stream := opts.mode == "stream"
	switch {
	case stream && g.output != "json":
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
	summary = &locateSummary{Graph: opts.graph, Communities: opts.communities}
	var client *connector.Client
	var run job.Run
	if in.isDB {
		if client, err = connectProjection(ctx, g); err != nil {
			return nil, nil, err
		}
		defer func() { client.Close(after.Context()) }()
		if opts.releaseRun == "latest" {
			if opts.releaseRun, err = latestRelease(ctx, client, &g.cfg.Config); err != nil {
				return nil, nil, err
			}
		}
		if opts.releaseRun != "" {
			if err = adoptRunProjection(ctx, g, client, opts.releaseRun); err != nil {
				return nil, nil, err
			}
			if err = checkLocateOutputs(&g.cfg.Config, in); err != nil {
				return nil, nil, err
			}
		}
		if !stream {
			if run, err = startLocateRun(ctx, opts, client, in.releasedProp); err != nil {
				return nil, nil, err
			}
			summary.RunID = run.Record().RunID
			defer func() { job.RecordFailure(after.Context(), g.logger, run, err) }()
		}
		if opts.releaseRun != "" {
			if err = releaseRunParams(ctx, g, client, opts.releaseRun, in); err != nil {
				return nil, nil, err
			}
		}
	}
	lj, err := locateJob(ctx, opts, in, client, summary)
	if err != nil {
		return nil, nil, err
	}
	res, err := graphcloak.Locate(ctx, lj)
	if err != nil {
		return nil, nil, err
	}
	summary.Estimator, summary.Status, summary.Sigma, summary.Tau = res.Estimator, res.Status, res.Sigma, in.tau
	summary.Report, summary.ComputeMillis = res.Report, res.ComputeMillis
	summary.CommunityCount = countCommunities(res.Nodes)
	summary.TopNodes = topNodes(res.Nodes, 10)
	summary.NoiseDominated, summary.PosteriorToPrior, summary.NoisePValue = res.NoiseDominated, res.PosteriorToPrior, res.NoisePValue
	if res.NoiseDominated && g.output == "json" { // the table says it in its own words
		g.logger.Warn("noise-dominated: the posterior cannot be told from the prior; the ranking is not a finding",
			"posteriorToPrior", res.PosteriorToPrior, "threshold", community.NoiseThreshold(res.Report.TopPrior(len(res.Nodes))))
	}
	if opts.forecastTrials > 0 {
		if summary.Forecast, err = locateForecast(ctx, opts, lj, res, in.tau); err != nil {
			return nil, nil, err
		}
	}
	g.logger.Info("located", "estimator", res.Estimator, "status", res.Status, "noSource", res.Report.NoSource,
		"communityCount", summary.CommunityCount)
	if err := emitLocate(ctx, opts, csvOut, lj, res, in.tau, summary); err != nil {
		return nil, nil, err
	}
	if stream && g.output == "json" {
		summary.Nodes = res.Nodes
	}
	if in.isDB && !stream {
		if err := writeLocate(ctx, g, client, run, res, lj.Names != nil, summary); err != nil {
			return nil, nil, err
		}
	}
	return summary, out, nil
}

// locateForecast simulates releases like the located one (same graph,
// communities, τ, σ and estimator) and returns the utility forecast: how
// often such a release names the right community.
func locateForecast(ctx context.Context, opts *locateOptions, lj graphcloak.LocateJob, res *graphcloak.LocateResult, tau float64) (*experiment.Forecast, error) {
	part := make([]int, len(res.Nodes))
	for i, n := range res.Nodes {
		part[i] = n.CommunityID
	}
	e := experiment.Graph{Graph: lj.Graph, Partition: part, Tau: tau, Sigma: res.Sigma, Sources: max(lj.Sources, 1),
		Trials: opts.forecastTrials, Estimator: lj.Estimator, Seed: lj.Seed, Progress: opts.g.progress("forecast trials")}
	r, err := experiment.RunGraph(ctx, e)
	if err != nil {
		return nil, err
	}
	f := experiment.ForecastOf(r)
	f.Epsilon, f.Delta, f.Alpha = lj.Released.Meta.Epsilon, lj.Released.Meta.Delta, lj.Released.Meta.Alpha
	return &f, nil
}

// emitLocate writes the per-node CSV (--out) and the picture (--plot).
func emitLocate(ctx context.Context, opts *locateOptions, csvOut *outputFile, lj graphcloak.LocateJob, res *graphcloak.LocateResult, tau float64, summary *locateSummary) error {
	if csvOut != nil {
		if err := writeLocateCSV(csvOut, res.Nodes); err != nil {
			return err
		}
		summary.Out = opts.out
	}
	if opts.plot != "" {
		if err := plotLocate(opts, lj.Graph, res, lj.Released, tau); err != nil {
			return err
		}
		summary.Plot = opts.plot
	}
	return ctx.Err()
}

// checkLocate validates locate's flags before any connection and reads the
// release file when one is given.
func checkLocate(opts *locateOptions) (*locateInputs, error) {
	cfg := &opts.g.cfg.Config
	in := &locateInputs{isDB: opts.graph == neo4jSpec, releasedProp: opts.releasedProperty,
		sigma: opts.sigma, tau: cfg.Privacy.Tau}
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
	in.commKind, in.commArg, _ = strings.Cut(opts.communities, ":")
	switch {
	case opts.graph == "":
		return nil, usageErrorf("--graph is required (neo4j, a generator such as karate, or file:PATH)")
	case opts.released != "" && in.releasedProp != "":
		return nil, usageErrorf("give either --release FILE or --released-property P, not both")
	case !in.isDB && opts.released == "":
		return nil, usageErrorf("--release FILE is required for a graph outside Neo4j")
	case !in.isDB && (in.releasedProp != "" || opts.releaseRun != ""):
		return nil, usageErrorf("--released-property and --release-run need --graph neo4j")
	}
	if err := checkCommunities(opts, in); err != nil {
		return nil, err
	}
	if in.isDB && opts.released == "" && in.releasedProp == "" && opts.releaseRun == "" {
		in.releasedProp = cfg.Write.WriteProperty
	}
	if in.isDB {
		if err := checkLocateOutputs(cfg, in); err != nil {
			return nil, err
		}
	}
	if in.releasedProp != "" {
		if !config.ValidIdentifier(in.releasedProp) {
			return nil, inputErrorf("--released-property: %q is not a valid property name", in.releasedProp)
		}
		if opts.releaseRun == "" && !(opts.sigma > 0 && !math.IsInf(opts.sigma, 0)) {
			return nil, usageErrorf("released values from a property need their σ: give --sigma S (> 0) or --release-run RUNID")
		}
	}
	if _, err := recovery.ByName(cfg.Recovery.Estimator); err != nil {
		return nil, inputErrorf("--estimator: %w", err)
	}
	if opts.sigma != 0 && !(opts.sigma > 0 && !math.IsInf(opts.sigma, 0)) {
		return nil, inputErrorf("--sigma must be a positive finite number, got %g", opts.sigma)
	}
	if opts.released != "" {
		rel, err := privacy.ReadReleaseFile(opts.released)
		if err != nil {
			return nil, inputErrorf("--release: %w", err)
		}
		in.rel = rel
	}
	return in, nil
}

// checkLocateOutputs: locate's outputs never overwrite a key, the
// communities or the released values it reads (nor each other).
func checkLocateOutputs(cfg *config.Config, in *locateInputs) error {
	read := connector.ReadProperties(projectionOf(cfg), map[string]string{
		in.releasedProp: "the released values read (--released-property)", cfg.Write.WriteProperty: "the release's values (--write-property)"})
	if in.commKind == "property" {
		read[in.commArg] = "the communities read (--communities property:…)"
	}
	return connector.CheckOutputs(read, map[string]string{"--mass-property": cfg.Write.MassProperty,
		"--community-write-property": cfg.Write.CommunityWriteProperty, "--probability-property": cfg.Write.ProbabilityProperty,
		"--rank-property": cfg.Write.RankProperty}, nil)
}

// checkCommunities checks --communities (and --resolution for detection).
func checkCommunities(opts *locateOptions, in *locateInputs) error {
	switch kind, arg := in.commKind, in.commArg; {
	case (kind == "leiden" || kind == "louvain") && arg == "":
		return checkPositive("resolution", opts.resolution)
	case kind == "file" && arg != "":
		return nil
	case kind == "gds" && (arg == "leiden" || arg == "louvain"):
		if !in.isDB {
			return usageErrorf("--communities gds:%s runs in Neo4j Graph Data Science and needs --graph neo4j", arg)
		}
		if arg == "louvain" && opts.resolution != 1 {
			return usageErrorf("--resolution: gds:louvain has no resolution parameter; use gds:leiden")
		}
		return checkPositive("resolution", opts.resolution)
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
	if err := projectionOf(&g.cfg.Config).Validate(); err != nil {
		return nil, err
	}
	return connectNeo4jLogged(ctx, g)
}

// locateBackend is the job backend of a localisation on client.
func locateBackend(g *globalOptions, client *connector.Client) *writeback.Neo4j {
	cfg := &g.cfg.Config
	return &writeback.Neo4j{Client: client, Database: cfg.Neo4j.Database, Projection: projectionOf(cfg),
		Write: connector.WriteOptions{BatchSize: cfg.Write.BatchSize, Concurrency: cfg.Write.Concurrency}}
}

// locateProperties are the node properties a localisation writes.
func locateProperties(cfg *config.Config) job.LocateProperties {
	return job.LocateProperties{Mass: cfg.Write.MassProperty, Community: cfg.Write.CommunityWriteProperty,
		Probability: cfg.Write.ProbabilityProperty, Rank: cfg.Write.RankProperty}
}

// startLocateRun claims locate's outputs and writes its run record
// ("running", with a lease) through job.StartLocate.
func startLocateRun(ctx context.Context, opts *locateOptions, client *connector.Client, releasedProp string) (job.Run, error) {
	cfg := &opts.g.cfg.Config
	id := opts.runID
	if id == "" {
		id = newRunID()
	}
	rec := connector.RunRecord{RunID: id, Command: "locate",
		Database: cfg.Neo4j.Database, Projection: projectionOf(cfg), StartedAt: time.Now().UTC(),
		Parameters: map[string]any{"estimator": cfg.Recovery.Estimator, "sources": cfg.Recovery.Sources,
			"communities": opts.communities, "releasedProperty": releasedProp, "releaseRun": opts.releaseRun,
			"massProperty": cfg.Write.MassProperty, "communityWriteProperty": cfg.Write.CommunityWriteProperty,
			"probabilityProperty": cfg.Write.ProbabilityProperty, "rankProperty": cfg.Write.RankProperty}}
	// A localisation of a release carries its scope and epoch, so the
	// history of a scope (graphcloak runs --scope) shows both steps.
	if opts.releaseRun != "" {
		if rr, err := client.ReadRun(ctx, cfg.Neo4j.Database, opts.releaseRun); err == nil {
			rec.Scope, rec.Epoch = rr.Scope, rr.Epoch
		}
	}
	return job.StartLocate(ctx, locateBackend(opts.g, client), rec, locateProperties(cfg), connector.DefaultLease)
}

// noReleaseError: --release-run latest found no succeeded release.
type noReleaseError struct{ scope string }

func (e *noReleaseError) Error() string {
	return fmt.Sprintf("--release-run latest: scope %q has no succeeded release yet", e.scope)
}

func (*noReleaseError) Kind() errkind.Kind { return errkind.BadInput }

// latestRelease returns the run id of the newest succeeded release of the
// configured scope (--release-run latest).
func latestRelease(ctx context.Context, client *connector.Client, cfg *config.Config) (string, error) {
	runs, err := client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, 0)
	if err != nil {
		return "", err
	}
	for _, r := range runs { // newest first
		if r.Command == "release" && r.Status == connector.StatusSucceeded {
			return r.RunID, nil
		}
	}
	return "", &noReleaseError{scope: cfg.Privacy.Scope}
}

// locateJob loads the graph with the released values (and a community
// property) and assembles the Locate job with its communities.
func locateJob(ctx context.Context, opts *locateOptions, in *locateInputs, client *connector.Client, summary *locateSummary) (graphcloak.LocateJob, error) {
	g := opts.g
	cfg := &g.cfg.Config
	pull, endPull := g.pullProgress()
	lopt := loadOptions{Client: client, ValueProperty: in.releasedProp, Progress: pull}
	if in.commKind == "property" {
		lopt.CommunityProperty = in.commArg
	}
	lg, err := loadGraph(ctx, cfg, opts.graph, lopt)
	endPull()
	if err != nil {
		return graphcloak.LocateJob{}, err
	}
	graph := lg.Graph
	summary.NodeCount, summary.RelationshipCount = graph.N(), graph.NumEdges()
	if in.releaseGraph != nil {
		if d := graph.Fingerprint().Diff(*in.releaseGraph); d != "" {
			return graphcloak.LocateJob{}, inputErrorf("--release-run: the graph is not the one this release was made on: %s%s", d, in.releaseHint)
		}
	}
	if in.releaseMeta != nil {
		if _, err := checkReleasedValues(in.release, in.releaseMeta, graph, lg.Pulled.Values, in.releaseDigest); err != nil {
			return graphcloak.LocateJob{}, err
		}
	}
	rel := in.rel
	if rel == nil {
		meta := privacy.ReleaseMeta{Sigma: in.sigma}
		if in.releaseMeta != nil { // its ε and δ reach the forecast and the picture's caption
			meta = *in.releaseMeta
			meta.Sigma = in.sigma
		}
		rel = &privacy.Released{Keys: graph.Keys(), Values: lg.Pulled.Values, Meta: meta}
	} else if err := checkReleaseProvenance(g, rel, graph, opts.sigma, &in.tau); err != nil {
		return graphcloak.LocateJob{}, err
	}
	lj := graphcloak.LocateJob{Graph: graph, Released: rel, Tau: in.tau, Estimator: cfg.Recovery.Estimator,
		Sources: cfg.Recovery.Sources, Seed: uint64(cfg.Write.RandomSeed), Resolution: opts.resolution, Progress: stepProgress(g)}
	lj.Partition, lj.Names, err = partitionOf(ctx, opts, in, client, lg, lj.Seed)
	return lj, err
}

// partitionOf returns the communities --communities names for the loaded
// graph (Leiden through serve's cache, Louvain, a file, GDS or a node
// property), with their names where they have them.
func partitionOf(ctx context.Context, opts *locateOptions, in *locateInputs, client *connector.Client, lg *loadedGraph, seed uint64) ([]int, []string, error) {
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
func propertyPartition(lg *loadedGraph) ([]int, []string, error) {
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
	ids, err := client.GDSCommunities(ctx, cfg.Neo4j.Database, projectionOf(cfg), algo, connector.GDSOptions{Resolution: resolution, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	byKey := make(map[string]string, len(ids))
	for k, c := range ids {
		byKey[k] = strconv.FormatInt(c, 10)
	}
	return community.FromAssignment(graph, byKey)
}

// writeLocate writes the per-node results and marks the run succeeded
// last (job.PublishLocate). named says the communities have names (a
// property or file).
func writeLocate(ctx context.Context, g *globalOptions, client *connector.Client, run job.Run, res *graphcloak.LocateResult, named bool, summary *locateSummary) error {
	rec := run.Record()
	rec.NodeCount, rec.RelationshipCount = summary.NodeCount, summary.RelationshipCount
	if rec.Parameters == nil {
		rec.Parameters = map[string]any{}
	}
	rec.Parameters["noiseDominated"] = res.NoiseDominated
	rec.Parameters["posteriorToPrior"] = res.PosteriorToPrior
	rec.Parameters["noisePValue"] = res.NoisePValue
	st, err := job.PublishLocate(ctx, locateBackend(g, client), run, res, named, locateProperties(&g.cfg.Config), g.progress("write-back"))
	summary.NodePropertiesWritten, summary.WriteMillis = st.NodePropertiesWritten, st.WriteMillis
	return err
}

// releaseRunParams reads σ, τ, the write property and the graph
// fingerprint from a release's run record into in, after checking that the
// values are still that run's (releaseRun). An explicit --sigma, --tau or
// --released-property that disagrees with the record is refused.
func releaseRunParams(ctx context.Context, g *globalOptions, c *connector.Client, runID string, in *locateInputs) error {
	rr, err := releaseRun(ctx, g, c, runID)
	if err != nil {
		return err
	}
	if !(rr.Sigma > 0) {
		return inputErrorf("--release-run: run %q records no σ", runID)
	}
	if in.sigma > 0 && in.sigma != rr.Sigma {
		return inputErrorf("--sigma %v disagrees with the release's σ %v", in.sigma, rr.Sigma)
	}
	if in.releasedProp != "" && in.releasedProp != rr.WriteProperty {
		return inputErrorf("--released-property %q disagrees with the release's write property %q", in.releasedProp, rr.WriteProperty)
	}
	if rt, ok := rr.Parameters["tau"].(float64); ok && rt > 0 {
		if g.cfg.Sources["privacy.tau"] != config.FromDefault && in.tau != rt {
			return inputErrorf("--tau %v disagrees with the release's τ %v", in.tau, rt)
		}
		in.tau = rt
	}
	var meta privacy.ReleaseMeta
	if rr.ReleaseMeta != "" && json.Unmarshal([]byte(rr.ReleaseMeta), &meta) == nil {
		in.releaseGraph, in.release, in.releaseMeta = meta.Graph, rr, &meta
		if in.releaseDigest, err = releaseDigest(ctx, g, c, rr); err != nil {
			return err
		}
	}
	in.sigma, in.releasedProp = rr.Sigma, rr.WriteProperty
	in.releaseHint = projectionHint(&g.cfg.Config, rr.Projection)
	return nil
}

// stepProgress maps pipeline steps to terminal progress bars.
func stepProgress(g *globalOptions) graphcloak.Progress {
	bars := map[string]func(int, int){}
	return func(step string, done, total int) {
		b, ok := bars[step]
		if !ok {
			b = g.progress(step)
			bars[step] = b
		}
		b(done, total)
	}
}

func countCommunities(nodes []graphcloak.NodeResult) int {
	seen := map[int]bool{}
	for _, n := range nodes {
		seen[n.CommunityID] = true
	}
	return len(seen)
}

// topNodes returns the k nodes of largest weight (ties by index).
func topNodes(nodes []graphcloak.NodeResult, k int) []graphcloak.NodeResult {
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return nodes[idx[a]].Weight > nodes[idx[b]].Weight })
	out := []graphcloak.NodeResult{}
	for _, i := range idx[:min(k, len(idx))] {
		if nodes[i].Weight > 0 {
			out = append(out, nodes[i])
		}
	}
	return out
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

// checkReleaseProvenance takes τ and σ from a release file and refuses what
// contradicts it: a --tau or --sigma given with another value, or a graph
// whose fingerprint is not the released one (naming what differs). A τ
// from the environment or config file is a default for new releases and
// yields to the release's. Release files written before provenance was recorded carry no τ or
// graph; then the configured τ is used as before.
func checkReleaseProvenance(g *globalOptions, rel *privacy.Released, graph *laplacian.Graph, sigma float64, tau *float64) error {
	m := rel.Meta
	if m.Graph != nil {
		if d := graph.Fingerprint().Diff(*m.Graph); d != "" {
			return inputErrorf("the graph is not the one this release was made on: %s", d)
		}
	}
	if sigma != 0 && sigma != m.Sigma {
		return inputErrorf("--sigma %g contradicts the release's σ = %g (σ comes from the release file; drop --sigma)", sigma, m.Sigma)
	}
	if m.Tau > 0 {
		if g.cfg.Sources["privacy.tau"] == config.FromFlag && *tau != m.Tau {
			return inputErrorf("--tau %g contradicts the release's τ = %g (τ comes from the release file; drop --tau)", *tau, m.Tau)
		}
		*tau = m.Tau
	}
	return nil
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
	v.Verdict = noiseVerdict(res.NoiseDominated, res.PosteriorToPrior)
	v.Caption = privacyCaption(rel.Meta.Epsilon, rel.Meta.Delta, tau, res.Sigma)
	return plotting.GraphPicture(opts.plot, v)
}

// communityCache keeps the last Leiden partition of each scope a serve
// process computed, with its graph, so the next slot updates it
// (community.Update) instead of recomputing it when the graph changed
// little. It holds one graph per scope in memory.
type communityCache struct {
	mu      sync.Mutex
	byScope map[string]*cachedPartition
}

type cachedPartition struct {
	graph *laplacian.Graph
	part  []int
	opt   community.LeidenOptions
}

// updateFraction is the share of changed nodes past which the cache
// recomputes from scratch: updates follow the change, and past a few
// percent a fresh run is as fast and cannot drift.
const updateFraction = 0.01

func newCommunityCache() *communityCache {
	return &communityCache{byScope: map[string]*cachedPartition{}}
}

// leiden returns the Leiden partition of g for scope: the cached one when
// the graph is unchanged, an update of it when few nodes changed, a fresh
// run otherwise. how says which.
func (c *communityCache) leiden(scope string, g *laplacian.Graph, opt community.LeidenOptions) (part []int, how string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.byScope[scope]
	switch {
	case old == nil || old.opt != opt:
		part, how = nil, "computed"
	default:
		prev, changed := community.Carry(old.graph, old.part, g)
		switch {
		case len(changed) == 0 && g.N() == old.graph.N():
			part, how = prev, "reused"
		case float64(len(changed)) <= updateFraction*float64(g.N()):
			part, err = community.Update(g, prev, changed, opt)
			how = fmt.Sprintf("updated (%d changed nodes)", len(changed))
		}
	}
	if part == nil && err == nil {
		part, err = community.Leiden(g, opt)
		if how == "" {
			how = "computed (the graph changed much)"
		}
	}
	if err != nil {
		return nil, "", err
	}
	c.byScope[scope] = &cachedPartition{graph: g, part: part, opt: opt}
	return part, how, nil
}

// cachedLeiden is locate's Leiden: from the serve cache when there is one
// (logged: computed, reused or updated), else a fresh run. Without a cache
// it returns nil, and the locate job runs Leiden itself, the same way.
func cachedLeiden(g *globalOptions, opts *locateOptions, graph *laplacian.Graph, seed uint64) ([]int, error) {
	opt := community.LeidenOptions{Resolution: opts.resolution, Seed: seed}
	if opts.communityCache == nil {
		if opts.privateAnswer.enabled {
			return community.Leiden(graph, opt)
		}
		return nil, nil
	}
	t0 := time.Now()
	part, how, err := opts.communityCache.leiden(g.cfg.Privacy.Scope, graph, opt)
	if err == nil {
		g.logger.Info("communities "+how, "nodes", graph.N(), "millis", time.Since(t0).Milliseconds())
	}
	return part, err
}

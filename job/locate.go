package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// LocateProperties name the node properties of a localisation.
type LocateProperties struct {
	Mass        string `json:"mass"`
	Community   string `json:"community"`
	Probability string `json:"probability"`
	Rank        string `json:"rank"`
}

// startLocate starts a localisation's run record rec ("running", with a
// lease) on b, after claiming its output properties: each holds one kind
// of values, so one that a release's values, another kind of output, the
// node key or the readings own is refused (bad input) before anything is
// computed or written.
func startLocate(ctx context.Context, b Backend, rec connector.RunRecord, props LocateProperties, lease time.Duration) (Run, error) {
	claims := connector.Claims{Outputs: map[string]string{
		props.Mass: connector.KindMass, props.Community: connector.KindCommunity,
		props.Probability: connector.KindProbability, props.Rank: connector.KindRank},
		Inputs: connector.InputClaims(rec.Projection)}
	if err := b.ClaimOutputs(ctx, rec.RunID, "locate", claims); err != nil {
		return nil, err
	}
	return b.StartRun(ctx, rec, lease)
}

// publishLocate writes res's per-node results (mass, community,
// community probability, rank) to the nodes, fills in the run record and
// marks the run succeeded last, so a localisation that stopped part-way
// is never recorded as succeeded. named says the communities have names
// (a property or a file): a numeric name is written as an integer, others
// as strings; detected communities are written as their integer ids.
func publishLocate(ctx context.Context, b Backend, run Run, res *graphcloak.LocateResult, named bool, props LocateProperties,
	progress func(done, total int)) (connector.WriteStats, error) {
	rows := make([]connector.NodeProps, len(res.Nodes))
	communities := map[int]bool{}
	for i, nr := range res.Nodes {
		communities[nr.CommunityID] = true
		var comm any = int64(nr.CommunityID)
		if named {
			if c, perr := strconv.ParseInt(nr.Community, 10, 64); perr == nil {
				comm = c
			} else {
				comm = nr.Community
			}
		}
		rows[i] = connector.NodeProps{Key: nr.Key, Props: map[string]any{
			props.Mass: nr.Mass, props.Community: comm, props.Probability: nr.Probability, props.Rank: int64(nr.Rank)}}
	}
	st, err := b.WriteNodes(ctx, rows, progress)
	if err != nil {
		return st, err
	}
	rec := run.Record()
	rec.Sigma = res.Sigma
	rec.NodePropertiesWritten, rec.ComputeMillis, rec.WriteMillis = st.NodePropertiesWritten, res.ComputeMillis, st.WriteMillis
	rec.Extra = map[string]any{"estimator": res.Estimator, "recoveryStatus": res.Status,
		"noSource": res.Report.NoSource, "communityCount": int64(len(communities))}
	if len(res.Report.Communities) > 0 {
		rec.Extra["topCommunity"] = res.Report.Communities[0].Name
		rec.Extra["topProbability"] = res.Report.Communities[0].Share
	}
	return st, run.Succeed(ctx) // last
}

// LocateSpec is one localisation as asked for (locate, a slot of serve),
// after the command has parsed its flags and read what it names: the
// release file, the release run's record. PlanLocate checks it.
type LocateSpec struct {
	// RunID names the run record of a written localisation.
	RunID string
	// Graph and Communities describe the inputs for the summary and the
	// run record ("neo4j", "karate"; "leiden", "property:c").
	Graph, Communities string
	// Neo4j: the graph is the database's (Database, Projection); its
	// results go to the nodes (Properties) under a run record unless
	// Stream: nothing written.
	Neo4j, Stream bool
	Database      string
	Projection    connector.Projection
	Properties    LocateProperties
	// The released values: the Neo4j property ReleasedProperty, or the
	// release file Released. WriteProperty is the configured release
	// property and CommunityProperty the communities read
	// (property:NAME): inputs a localisation never writes.
	ReleasedProperty  string
	Released          *privacy.Released
	WriteProperty     string
	CommunityProperty string
	// Release is the release run's record, read by the command and found
	// succeeded with its values still bound to it; ReleaseDigest is the
	// digest of its values ("": unknown); ReleaseHint names the
	// projection flags that differ from the release's.
	Release       *connector.RunRecord
	ReleaseDigest string
	ReleaseHint   string
	// σ of the released values (0: the release's) and τ. TauGiven: τ was
	// configured (flag, environment or file), so a release run's other τ
	// is refused; TauFlag: given as a flag, so a release file's is.
	Sigma, Tau        float64
	TauGiven, TauFlag bool
	// The recovery: estimator, sources, seed and modularity resolution.
	Estimator  string
	Sources    int
	Seed       uint64
	Resolution float64
	// ForecastTrials simulated releases forecast the utility (0: none).
	ForecastTrials int
	// SourceMass, when > 0, is the stated total source mass the verdict's
	// forecast simulates (SourceMass); 0: estimated from the release
	// (forecast.EstimateMass).
	SourceMass float64
	Lease      time.Duration
	// DryRun plans only: no run record, nothing located or written.
	DryRun bool
	// Store keeps the verdict's forecast (its Forecasts memo), so that
	// locating the same release again reads it (nil: none kept).
	Store *WorkCache
}

// Check validates the parameters and the outputs: a localisation never
// writes into a node key, the communities or released values it reads,
// nor one output into another (bad input).
func (s *LocateSpec) Check() error {
	if _, err := recovery.ByName(s.Estimator); err != nil {
		return errkind.Inputf("%s: %w", ParamEstimator, err)
	}
	if s.Sigma != 0 && !(s.Sigma > 0 && !math.IsInf(s.Sigma, 0)) {
		return errkind.Inputf("%s must be a positive finite number, got %g", ParamSigma, s.Sigma)
	}
	if !s.Neo4j {
		return nil
	}
	read := map[string]error{
		s.ReleasedProperty: errkind.Errorf("the released values read (%s)", ParamReleasedProperty),
		s.WriteProperty:    errkind.Errorf("the release's values (%s)", ParamWriteProperty)}
	if s.CommunityProperty != "" {
		read[s.CommunityProperty] = errkind.Errorf("the communities read (%s)", ParamCommunityProperty)
	}
	p := s.Properties
	return checkOutputs(s.Projection, read, map[errkind.Param]string{ParamMassProperty: p.Mass,
		ParamCommunityOut: p.Community, ParamProbability: p.Probability, ParamRank: p.Rank}, nil)
}

// writes: the results go to the database under a run record.
func (s *LocateSpec) writes() bool { return s.Neo4j && !s.Stream }

// adoptRelease takes σ, τ and the released property from the
// release run's record; an explicit σ, τ or released property that
// disagrees with it is refused.
func (s *LocateSpec) adoptRelease() (*privacy.ReleaseMeta, error) {
	rr := s.Release
	if !(rr.Sigma > 0) {
		return nil, errkind.Inputf("%s: run %q records no σ", ParamReleaseRun, rr.RunID)
	}
	if s.Sigma > 0 && s.Sigma != rr.Sigma {
		return nil, errkind.Inputf("%s %v disagrees with the release's σ %v", ParamSigma, s.Sigma, rr.Sigma)
	}
	if s.ReleasedProperty != "" && s.ReleasedProperty != rr.WriteProperty {
		return nil, errkind.Inputf("%s %q disagrees with the release's write property %q", ParamReleasedProperty, s.ReleasedProperty, rr.WriteProperty)
	}
	if rt, ok := rr.Parameters["tau"].(float64); ok && rt > 0 {
		if s.TauGiven && s.Tau != rt {
			return nil, errkind.Inputf("%s %v disagrees with the release's τ %v", ParamTau, s.Tau, rt)
		}
		s.Tau = rt
	}
	s.Sigma, s.ReleasedProperty = rr.Sigma, rr.WriteProperty
	var meta privacy.ReleaseMeta
	if rr.ReleaseMeta == "" || json.Unmarshal([]byte(rr.ReleaseMeta), &meta) != nil {
		return nil, nil // an older release: its run binding was checked
	}
	return &meta, nil
}

// adoptFile takes τ and σ from the release file and refuses what
// contradicts it: a τ or σ given with another value, or a graph
// whose fingerprint is not the released one (naming what differs). A τ
// from the environment or config file is a default for new releases and
// yields to the release's. Release files written before provenance was
// recorded carry no τ or graph; then the configured τ is used.
func (s *LocateSpec) adoptFile(graph *laplacian.Graph) error {
	m := s.Released.Meta
	if m.Graph != nil {
		if d := graph.Fingerprint().Diff(*m.Graph); d != "" {
			return errkind.Inputf("the graph is not the one this release was made on: %s", d)
		}
	}
	if s.Sigma != 0 && s.Sigma != m.Sigma {
		return errkind.Inputf("%s %g contradicts the release's σ = %g (σ comes from the release file; drop %s)", ParamSigma, s.Sigma, m.Sigma, ParamSigma)
	}
	if m.Tau > 0 {
		if s.TauFlag && s.Tau != m.Tau {
			return errkind.Inputf("%s %g contradicts the release's τ = %g (τ comes from the release file; drop %s)", ParamTau, s.Tau, m.Tau, ParamTau)
		}
		s.Tau = m.Tau
	}
	return nil
}

// runRecord is the run record a written localisation starts; one of a
// release carries its scope and epoch, so the history of a scope shows
// both steps.
func (s *LocateSpec) runRecord(now time.Time) connector.RunRecord {
	p := s.Properties
	rec := connector.RunRecord{RunID: s.RunID, Command: "locate", Database: s.Database, Projection: s.Projection, StartedAt: now.UTC(),
		Parameters: map[string]any{"estimator": s.Estimator, "sources": s.Sources, "communities": s.Communities,
			"releasedProperty": s.ReleasedProperty, "releaseRun": "", "massProperty": p.Mass, "communityWriteProperty": p.Community,
			"probabilityProperty": p.Probability, "rankProperty": p.Rank}}
	if s.Release != nil {
		rec.Parameters["releaseRun"] = s.Release.RunID
		rec.Scope, rec.Epoch = s.Release.Scope, s.Release.Epoch
	}
	return rec
}

// LocateSummary is what a localisation did: the output of locate (-o
// json, docs/schemas/locate) and of serve's locate step.
type LocateSummary struct {
	RunID string `json:"runId,omitempty"`
	// DryRun: the plan only (DryRun): no report, nothing written.
	DryRun bool   `json:"dryRun"`
	Graph  string `json:"graph"`
	// ReleaseRun is the release located (the release run); WriteProperties
	// the node properties a written localisation writes (nil: none).
	ReleaseRun            string                  `json:"releaseRun,omitempty"`
	WriteProperties       *LocateProperties       `json:"writeProperties,omitempty"`
	NodeCount             int                     `json:"nodeCount"`
	RelationshipCount     int                     `json:"relationshipCount"`
	Estimator             string                  `json:"estimator"`
	Status                string                  `json:"status,omitempty"`
	Sigma                 float64                 `json:"sigma"`
	Tau                   float64                 `json:"tau"`
	Communities           string                  `json:"communities"`
	CommunityCount        int                     `json:"communityCount"`
	Report                *community.Report       `json:"report,omitempty"`
	TopNodes              []graphcloak.NodeResult `json:"topNodes"`
	NodePropertiesWritten int                     `json:"nodePropertiesWritten"`
	ComputeMillis         int64                   `json:"computeMillis"`
	WriteMillis           int64                   `json:"writeMillis"`
	Out                   string                  `json:"out,omitempty"`
	Plot                  string                  `json:"plot,omitempty"`
	// NoiseDominated: the answer is noise — by the forecast, when one was
	// made (NoiseBasis "forecast": releases like this one name the right
	// community no more often than a guess, forecast.PerNode),
	// else by this ranking's posterior against its prior (NoiseBasis
	// "posterior").
	// NoiseReason says it in a sentence.
	NoiseDominated   bool               `json:"noiseDominated"`
	NoiseBasis       string             `json:"noiseBasis,omitempty"`
	NoiseReason      string             `json:"noiseReason,omitempty"`
	PosteriorToPrior float64            `json:"posteriorToPrior"`
	NoisePValue      float64            `json:"noisePValue"`
	Forecast         *forecast.Forecast `json:"forecast,omitempty"`
	// SourceMass is the source mass the release carries (estimated, with
	// its 95% lower bound, or SourceMass): the forecast simulates
	// sources of its lower bound (forecast.Judge).
	SourceMass *forecast.MassEstimate `json:"sourceMass,omitempty"`
	// Verdict is the one stated verdict with its reason, noise or answer
	// (NoiseDominated and NoiseReason say the same; nil without a
	// forecast or when nothing was found).
	Verdict *forecast.Verdict `json:"verdict,omitempty"`
	// ExactNode is the exact node's privacy at the least mass the release
	// demonstrably carries (SourceMass.Low, or the stated mass): a per-node
	// release protects one unit α moved one hop, a heavier source less
	// (nil without a source mass, or without the release's Δ2, α and δ).
	ExactNode *privacy.ExactNode `json:"exactNode,omitempty"`
	// Nodes are every node's results in stream mode under -o json.
	Nodes []graphcloak.NodeResult `json:"nodes,omitempty"`
}

// LocatePlan is a checked localisation: the release's parameters
// adopted, the graph read and found to be the release's (fingerprint),
// the released values found to be its own (grid and digest), the
// communities read. ExecuteLocate carries it out.
type LocatePlan struct {
	Spec LocateSpec
	// Request is the localisation, its communities resolved (Leiden when the
	// input has none), so that the forecast and the located result use
	// the same partition.
	Request graphcloak.LocateRequest
	// Summary is the localisation as planned (a dry run prints it: σ, τ,
	// the outputs, the forecast); ExecuteLocate completes it.
	Summary *LocateSummary

	env Env
}

// PlanLocate checks spec and what the localisation reads, before any run
// is claimed or anything written: the outputs (Check), the release's σ,
// τ and property against the flags, the graph and released values
// (env.LoadReleased) against the release's fingerprint and digest, or a
// release file's provenance. It settles the communities and makes the
// utility forecast, which depend on nothing the localisation finds.
func PlanLocate(ctx context.Context, spec LocateSpec, env Env) (*LocatePlan, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	var meta *privacy.ReleaseMeta
	if spec.Release != nil {
		var err error
		if meta, err = spec.adoptRelease(); err != nil {
			return nil, err
		}
	}
	in, err := env.LoadReleased(ctx, spec.ReleasedProperty)
	if err != nil {
		return nil, err
	}
	graph := in.Graph
	p := &LocatePlan{Spec: spec, env: env, Summary: &LocateSummary{Graph: spec.Graph, Communities: spec.Communities,
		NodeCount: graph.N(), RelationshipCount: graph.NumEdges()}}
	rel, err := p.released(graph, meta, in.Readings)
	if err != nil {
		return nil, err
	}
	p.sayEstimate(graph, in.Partition != nil, rel.Meta.Sigma) // once the release is known to fit the graph
	s := &p.Spec
	p.Request = graphcloak.LocateRequest{Graph: graph, Released: rel, Tau: s.Tau, Estimator: s.Estimator, Sources: s.Sources,
		Seed: s.Seed, Resolution: s.Resolution, Partition: in.Partition, Names: in.Names, Progress: sayStepEstimates(StepProgress(env.Progress), env.Say)}
	if p.Request.Partition == nil { // as graphcloak.Locate would: Leiden
		res := s.Resolution
		if res == 0 {
			res = 1
		}
		end := env.phase(fmt.Sprintf("communities (leiden) on %d nodes", graph.N()))
		p.Request.Partition, err = community.Leiden(graph, community.LeidenOptions{Resolution: res, Seed: s.Seed})
		end()
		if err != nil {
			return nil, err
		}
		p.Request.Names = nil
	}
	p.summarise()
	if s.ForecastTrials > 0 {
		if s.SourceMass < 0 || math.IsNaN(s.SourceMass) || math.IsInf(s.SourceMass, 0) {
			return nil, errkind.Inputf("%s must be a positive finite number of units, got %g", ParamSourceMass, s.SourceMass)
		}
		if p.Summary.Forecast, err = p.forecast(ctx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// sayEstimate tells (env.Say) the localisation's modelled time before
// its long steps (cost.Localise), on graphs of guessNodes nodes or more,
// when it is over LongStep: community detection (partitioned false), the source mass's
// null draws (when it forecasts and no mass is stated), the recovery and
// the evidence test's null draws (unless a dry run) — a draw one column
// action of exp(−τL), K·(2|E|+n) steps at this machine's measured step
// rate, the recovery recoveryActions of them. The forecast's trials run
// only when the source mass is detected (forecast.AtMass), which is not
// known before: the line names their time apart, and they tell their
// own estimate once timed.
func (p *LocatePlan) sayEstimate(g *laplacian.Graph, partitioned bool, sigma float64) {
	if p.env.Say == nil || g.N() < guessNodes {
		return
	}
	if total, line := p.estimate(g, partitioned, sigma); total > LongStep.Seconds() {
		p.env.Say(line)
	}
}

// estimate is sayEstimate's modelled time and line (cost.Localise) for
// released values of noise σ.
func (p *LocatePlan) estimate(g *laplacian.Graph, partitioned bool, sigma float64) (float64, string) {
	s := &p.Spec
	return cost.Localise(g, cost.Localisation{Tau: s.Tau, Partitioned: partitioned, ForecastTrials: s.ForecastTrials, SourceMass: s.SourceMass, DryRun: s.DryRun,
		ExactNormBlocks: exactNormBlocks(s.Estimator), Sigma: sigma})
}

// exactNormBlocks is the cap on exact column norms' block actions that
// graphcloak.Locate runs the named estimator with (recovery.ForRelease).
func exactNormBlocks(estimator string) int {
	est, err := recovery.ByName(estimator)
	if err != nil {
		return 0
	}
	if p, ok := recovery.ForRelease(est).(recovery.Posterior); ok {
		return p.ExactNorms
	}
	return 0
}

// summarise puts what the plan fixed into its summary: what a dry run
// prints and ExecuteLocate then does.
func (p *LocatePlan) summarise() {
	s, sum := &p.Spec, p.Summary
	sum.DryRun = s.DryRun
	est, _ := recovery.ByName(s.Estimator) // checked by Check
	sum.Estimator, sum.Sigma, sum.Tau = est.Name(), p.Request.Released.Meta.Sigma, s.Tau
	sum.CommunityCount = countCommunities(p.Request.Partition)
	if s.Release != nil {
		sum.ReleaseRun = s.Release.RunID
	}
	if s.writes() {
		props := s.Properties
		sum.WriteProperties = &props
	}
}

// released is the release located on graph: the release file, or the
// values read, after checking that they are the release's own.
func (p *LocatePlan) released(graph *laplacian.Graph, meta *privacy.ReleaseMeta, values []float64) (*privacy.Released, error) {
	s := &p.Spec
	if s.Released != nil {
		return s.Released, s.adoptFile(graph)
	}
	if s.Release != nil && meta != nil {
		if fp := meta.Graph; fp != nil {
			if d := graph.Fingerprint().Diff(*fp); d != "" {
				return nil, errkind.Inputf("%s: the graph is not the one this release was made on: %s%s", ParamReleaseRun, d, s.ReleaseHint)
			}
		}
		rel, err := CheckReleasedValues(s.Release, meta, graph, values, s.ReleaseDigest)
		if err != nil {
			return nil, err
		}
		if len(meta.Missing) > 0 { // the sensors that reported only (graphcloak.ReleasedRows)
			rel.Meta.Sigma = s.Sigma
			return rel, nil
		}
	}
	m := privacy.ReleaseMeta{Sigma: s.Sigma}
	if meta != nil { // its ε and δ reach the forecast and the picture's caption
		m = *meta
		m.Sigma = s.Sigma
	}
	return &privacy.Released{Keys: graph.Keys(), Values: values, Meta: m}, nil
}

// ExecuteLocate carries out the plan p: a written localisation claims its
// outputs and starts its run record first (startLocate), then locates
// (graphcloak.Locate), forecasts, hands the results to env.Output (the
// command's per-node file and picture) and writes them to the nodes with
// the run succeeded last (publishLocate). A failure after the claim is
// recorded on the run within env.Bookkeeping's deadline.
func ExecuteLocate(ctx context.Context, p *LocatePlan) (sum *LocateSummary, err error) {
	s, env, sum := &p.Spec, &p.env, p.Summary
	if s.DryRun {
		return sum, errors.New("job: a dry run's plan is printed, never executed")
	}
	var run Run
	if s.writes() {
		if run, err = startLocate(ctx, env.Backend, s.runRecord(env.now()), s.Properties, s.Lease); err != nil {
			return nil, err
		}
		sum.RunID = run.Record().RunID
		defer func() { recordFailure(env.bookkeeping(ctx), env.logger(), run, err) }()
	}
	res, err := graphcloak.Locate(ctx, p.Request)
	if err != nil {
		return nil, err
	}
	sum.Status, sum.Report, sum.ComputeMillis = res.Status, res.Report, res.ComputeMillis
	sum.TopNodes = topNodes(res.Nodes, 10)
	if s.ForecastTrials > 0 && sum.SourceMass != nil {
		sum.Verdict = judgeRelease(res, sum.Forecast, *sum.SourceMass)
	}
	sum.NoiseDominated, sum.PosteriorToPrior, sum.NoisePValue = res.NoiseDominated, res.PosteriorToPrior, res.NoisePValue
	sum.NoiseBasis, sum.NoiseReason = res.NoiseBasis, res.NoiseReason
	env.logger().Info("located", "estimator", res.Estimator, "status", res.Status, "noSource", res.Report.NoSource,
		"communityCount", sum.CommunityCount)
	if env.Output != nil {
		if err := env.Output(ctx, p.Request, res, sum); err != nil {
			return nil, err
		}
	}
	if run != nil {
		if err := p.publish(ctx, run, res); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// LocateForecastTrials is locate's default trials a round of its
// forecast (--forecast-trials): what a plan's verdict rate assumes.
const LocateForecastTrials = 100

// judgeRelease replaces the ranking's own noise verdict by the release's
// one verdict (forecast.Judge): the evidence test against pure noise,
// the source mass the release carries and the forecast at that mass (f,
// nil when the mass cannot be told from 0) reconciled, with its reason.
// One ranking's posterior varies from release to release, so judged alone
// it flags many rankings of a release that is right several times as
// often as chance; a ranking that found nothing stays so.
func judgeRelease(res *graphcloak.LocateResult, f *forecast.Forecast, m forecast.MassEstimate) *forecast.Verdict {
	if res.Report == nil || res.Report.NoSource {
		return nil
	}
	v := forecast.Judge(f, m, res.NoisePValue)
	res.NoiseBasis, res.NoiseDominated, res.NoiseReason = graphcloak.NoiseByForecast, v.Noise, ""
	if v.Noise {
		res.NoiseReason = v.Reason
	}
	return &v
}

// forecast estimates the source mass the release carries (or takes
// SourceMass) into Summary.SourceMass and simulates releases like the
// located one (same graph, communities, τ, σ and estimator) with sources
// of its 95% lower bound: how often such a release names the right
// community, in as many rounds of ForecastTrials as the noise verdict
// needs (forecast.AtMass). nil when the mass cannot be told
// from 0. The released values are public; the simulation draws only its
// own seeded noise.
func (p *LocatePlan) forecast(ctx context.Context) (*forecast.Forecast, error) {
	lr := &p.Request
	// In key order: the same graph read in any order gets one verdict.
	cg, perm, err := canonicalGraph(lr.Graph)
	if err != nil {
		return nil, err
	}
	sigma := lr.Released.Meta.Sigma
	mass := forecast.GivenMass(p.Spec.SourceMass, p.env.paramName(ParamSourceMass))
	y, rows, err := graphcloak.ReleasedRows(lr.Graph, lr.Released)
	if err != nil {
		return nil, err
	}
	// Missing sensors: the forecast simulates releases in which the same
	// sensors report (canonical indices, sorted), located as this one is.
	var reported []int
	if rows != nil {
		reported = make([]int, len(rows))
		for k, i := range rows {
			reported[k] = perm[i]
		}
		slices.Sort(reported)
	}
	if p.Spec.SourceMass == 0 {
		model, err := recovery.NewGraphModel(cg, lr.Tau, lr.Model)
		if err != nil {
			return nil, err
		}
		yc := make([]float64, len(y))
		if rows == nil {
			for i, v := range y {
				yc[perm[i]] = v
			}
		} else { // missing sensors: the reported rows, in canonical indices
			crows := make([]int, len(rows))
			for k, i := range rows {
				crows[k] = perm[i]
			}
			copy(yc, y)
			if model, err = model.Rows(crows); err != nil {
				return nil, err
			}
		}
		mass = forecast.EstimateMass(model, yc, sigma, lr.Seed, p.env.progress("source mass"))
	}
	p.Summary.SourceMass = &mass
	if p.Summary.ExactNode, err = locateExactNode(lr.Released.Meta, mass.Low); err != nil {
		return nil, err
	}
	e := forecast.Simulation{Graph: cg, Partition: canonicalPartition(cg, lr.Partition, perm), Tau: lr.Tau, Sigma: sigma, Sources: max(lr.Sources, 1),
		Trials: p.Spec.ForecastTrials, Estimator: lr.Estimator, Seed: lr.Seed, Reported: reported}
	var first func(float64, int)
	if say := p.env.Say; say != nil {
		first = func(per float64, timed int) {
			if line := cost.VerdictForecastLine(e.Trials, per, timed, LongStep.Seconds()); line != "" {
				say(line)
			}
		}
	}
	report, end := roundsProgress(p.env.progress("forecast trials"), forecast.VerdictRounds, e.Trials, first)
	e.Progress = report
	f, err := forecast.AtMassMemo(ctx, e, mass, p.Spec.Store.Forecasts(), p.Spec.forecastRequest(lr.Graph, lr.Released.Meta.ReleaseID))
	if err != nil || f == nil {
		return nil, err
	}
	end()
	if f.Reused {
		p.env.logger().Info("the verdict's forecast reused from the store: the same release, graph, communities and trials", "trials", f.Trials)
	}
	f.Epsilon, f.Delta, f.Alpha = lr.Released.Meta.Epsilon, lr.Released.Meta.Delta, lr.Released.Meta.Alpha
	return f, nil
}

// publish writes the per-node results with the noise verdict on the run
// record, succeeded last (publishLocate).
func (p *LocatePlan) publish(ctx context.Context, run Run, res *graphcloak.LocateResult) error {
	sum := p.Summary
	rec := run.Record()
	rec.NodeCount, rec.RelationshipCount = sum.NodeCount, sum.RelationshipCount
	if rec.Parameters == nil {
		rec.Parameters = map[string]any{}
	}
	rec.Parameters["noiseDominated"] = res.NoiseDominated
	rec.Parameters["noiseBasis"] = res.NoiseBasis
	rec.Parameters["posteriorToPrior"] = res.PosteriorToPrior
	rec.Parameters["noisePValue"] = res.NoisePValue
	rec.Parameters["noiseReason"] = res.NoiseReason
	if m := sum.SourceMass; m != nil {
		rec.Parameters["sourceMass"], rec.Parameters["sourceMassLow"] = m.Mass, m.Low
	}
	if e := sum.ExactNode; e != nil { // the exact node's privacy at that mass
		rec.Parameters["exactNodeMass"], rec.Parameters["exactNodeEpsilon"], rec.Parameters["exactNodePrivate"] = e.Mass, e.Epsilon, e.Private
	}
	st, err := publishLocate(ctx, p.env.Backend, run, res, p.Request.Names != nil, p.Spec.Properties, p.env.progress("write-back"))
	sum.NodePropertiesWritten, sum.WriteMillis = st.NodePropertiesWritten, st.WriteMillis
	return err
}

// CheckReleasedValues rebuilds the release rr published from the values
// read on graph, after checking that they are its own: the graph is the
// one it was made on (fingerprint: keys, edges, weights), every value lies
// on its grid γ = 2^-k (so r_i = value/γ exactly), and the (key, r_i)
// pairs have the digest the run recorded (want, "" when none is known).
// Values another command wrote over the release's property, or read under
// another node key, are refused: unmask would print wrong "true" values
// and locate would rank something that is not a reading. The nodes a
// collected local release lists as missing (meta.Missing) must have no
// value (NaN, as read with AllowMissingValues) and are left out.
func CheckReleasedValues(rr *connector.RunRecord, meta *privacy.ReleaseMeta, graph *laplacian.Graph, values []float64, want string) (*privacy.Released, error) {
	if meta.Graph != nil {
		if d := graph.Fingerprint().Diff(*meta.Graph); d != "" {
			return nil, errkind.Inputf("%s: the graph is not the one release %s was made on (check %s and the %s): %s", ParamReleaseRun, rr.RunID, ParamNodeKey, ParamProjection, d)
		}
	}
	missing := make(map[string]bool, len(meta.Missing))
	for _, k := range meta.Missing {
		missing[k] = true
	}
	rel := &privacy.Released{Meta: *meta}
	for i, v := range values {
		k := graph.Key(i)
		if missing[k] {
			if !math.IsNaN(v) {
				return nil, errkind.Inputf("%s: node %s did not report to release %s but holds %s = %v: another command wrote it", ParamReleaseRun, k, rr.RunID, rr.WriteProperty, v)
			}
			continue // a sensor that did not report (a collected local release)
		}
		r := math.Ldexp(v, meta.GridExponent) // exact: a power-of-two scaling
		if r != math.Trunc(r) || math.Abs(r) >= 1<<53 {
			return nil, errkind.Inputf("%s: node %s: %s = %v is not on the release grid 2^-%d", ParamReleaseRun, k, rr.WriteProperty, v, meta.GridExponent)
		}
		rel.Keys, rel.Values, rel.Grid = append(rel.Keys, k), append(rel.Values, v), append(rel.Grid, int64(r))
	}
	if want != "" && rel.Digest() != want {
		return nil, errkind.Inputf("%s: the values in %q are not the ones release %s published (their digest differs): another command wrote over them, or the node keys differ from the release's", ParamReleaseRun, rr.WriteProperty, rr.RunID)
	}
	return rel, nil
}

// sayStepEstimates passes the pipeline's progress on and tells (say;
// nil: nobody) the evidence test's estimate once its first block of null
// draws is done (recovery.Model.ApplyTEach: evidenceBlock at a time): its
// draws at the pace of the first block (from the recovery's end, when the
// test starts), when over LongStep.
func sayStepEstimates(progress graphcloak.Progress, say func(string)) graphcloak.Progress {
	const evidenceBlock = 32
	if say == nil {
		return progress
	}
	var started time.Time
	return func(step string, done, total int) {
		switch {
		case step == "recovery" && done == total:
			started = time.Now()
		case step == "evidence test" && done == min(evidenceBlock, total) && !started.IsZero():
			// The draws go through the action a block at a time: the first
			// block's pace.
			per := time.Since(started).Seconds() / float64(done)
			if d := per * float64(total); d > LongStep.Seconds() {
				say(fmt.Sprintf("estimated %s for the evidence test (%d null draws at %.3g s, the first %d's pace)",
					answer.HumanDuration(time.Duration(d*float64(time.Second))), total, per, done))
			}
		}
		if progress != nil {
			progress(step, done, total)
		}
	}
}

// StepProgress maps the pipeline's steps to one progress callback each
// (progress(step), made on the step's first report; nil: none).
func StepProgress(progress func(step string) func(done, total int)) graphcloak.Progress {
	if progress == nil {
		return nil
	}
	bars := map[string]func(int, int){}
	return func(step string, done, total int) {
		b, ok := bars[step]
		if !ok {
			b = progress(step)
			bars[step] = b
		}
		if b != nil {
			b(done, total)
		}
	}
}

func countCommunities(partition []int) int {
	seen := map[int]bool{}
	for _, c := range partition {
		seen[c] = true
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

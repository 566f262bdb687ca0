package forecast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/trials"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// ParamError reports an invalid parameter of a simulation: a forecast's,
// or one of package experiment's experiments, which share it. Its text
// reads "experiment: parameter …" for both.
type ParamError struct {
	Param  string
	Value  any
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("experiment: parameter %s = %v %s", e.Param, e.Value, e.Reason)
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return &ParamError{name, v, "must be positive and finite"}
	}
	return nil
}

// Simulation simulates per-node releases on a graph: it plants unit
// sources at uniformly random nodes, releases ỹ = exp(−τL) f0 + N(0, σ²I)
// with σ calibrated to Δ2 (the analytic Gaussian), recovers with the
// estimator and scores the result against a partition.
type Simulation struct {
	Graph *laplacian.Graph
	// Partition scores the community answers (planted blocks, detected or
	// given communities); nil means Leiden at resolution 1 with Seed.
	Partition []int
	Names     []string // optional community names
	Tau       float64
	// Epsilon, Delta: the privacy target; σ is calibrated from
	// Δ2 = sensitivity.Graph(Graph, Tau, Alpha).
	Epsilon, Delta float64
	// Mechanism calibrates σ; the zero value means the discrete Gaussian
	// with CKS20 accounting, the σ that privacy.Release publishes with.
	Mechanism privacy.Mechanism
	Alpha     float64 // neighbour EMD radius; default 1 (a unit source moved one hop)
	// Sigma, when non-zero, replaces the calibrated σ (a non-private
	// sanity setting).
	Sigma float64
	// Sensitivity, when non-nil, is Δ2 computed before for this graph, τ
	// and α (a sweep over ε, a forecast before a release); otherwise
	// calibrate computes it.
	Sensitivity *sensitivity.Result
	// TimeBudget, when > 0, stops starting trials after this long once
	// MinTrials have finished; the result then covers the trials that ran
	// (SimulationResult.Trials) and its intervals widen accordingly.
	TimeBudget time.Duration
	MinTrials  int
	Sources    int // sources per trial, at distinct nodes (default 1)
	// SourceMass is the mass of each simulated source (default 1: unit
	// sources). A verdict on a release simulates sources of the strength
	// its readings carry (EstimateMass), not unit ones.
	SourceMass float64
	Trials     int    // ≥ 1
	Estimator  string // recovery.ByName; "" = recovery.Default
	Seed       uint64
	Workers    int // parallel trials; default GOMAXPROCS
	// Progress, when non-nil, is called after each finished trial.
	Progress func(done, total int)
	// Pool, when set, supplies the trials' sources and noise (TrialPool):
	// drawn once from the pool's seed for every σ and source mass, so
	// Seed only names the run.
	Pool *TrialPool
	// noEMD: the caller reads no EMD (a Forecast has none), so the trials
	// skip the transport problem, a third of a trial's time (EMDMean NaN).
	noEMD bool
	// Missing is the fraction of sensors that do not report, in [0, 1):
	// each block of 32 trials leaves out MissingCount of them, drawn
	// uniformly at random (independent of the sources, as sensors that
	// fail or are switched off are), and recovers from the others'
	// readings alone (recovery.Model.Rows), as locate does a local release
	// with missing sensors. Default 0: every sensor reports.
	Missing float64
	// Reported, when non-nil, are the only sensors that report, in every
	// trial (a located release's, sorted); Missing must then be 0.
	Reported []int
	// trialOffset: with a Pool, trial t is the pool's trial trialOffset+t
	// (PerNode's later rounds take the pool's next trials).
	trialOffset int
	// zeroMass: with a Pool, the trials carry no source mass (ỹ = σ·z, the
	// sources still drawn and scored): MassCurves' paired test.
	zeroMass bool
	// Verdicts forecasts locate's verdict on every trial (its evidence
	// test and source mass; verdictTests): a curve by source mass reads
	// them (MassPoint.VerdictRate), always for the masses it simulates,
	// for a unit forecast given to it when this was set.
	Verdicts bool
	// VerdictRoundTrials is the trials of a round of locate's forecast
	// (its --forecast-trials) the verdict rate assumes; default Trials.
	VerdictRoundTrials int
	// verdicts are the tests Verdicts asks for, shared by every round,
	// mass and ε of one curve.
	verdicts *verdictTests
	// barCost weighs the work of MassCurves' bar (EpsilonSweep.BarCost;
	// zero: defaultBarWeights).
	barCost PilotCost
}

// SimulationResult summarises a Simulation.
//
// CommunityAccuracy: with k distinct true source communities, the fraction
// of them among the k top-ranked communities of the report, averaged over
// trials (a single source: the top community is the source's). A
// no-source trial scores 0. ExactNodeRate: the fraction of true sources
// among the K heaviest nodes of the estimate (posterior when the estimator
// has one, else f̂). EMDMean: graph EMD between f0/K and f̂/‖f̂‖₁ over the
// trials with f̂ ≠ 0 whose mass lies in each connected component in the
// same share as the sources' (on a disconnected graph the others have no
// transport plan: their EMD is infinite, and they are left out; with none
// left EMDMean is NaN, null in JSON). TrueShareMean is the mean share the
// report gives the true source communities (a calibration check for
// posteriors).
type SimulationResult struct {
	Trials      int    `json:"trials"`
	Estimator   string `json:"estimator"`
	Nodes       int    `json:"nodeCount"`
	Edges       int    `json:"relationshipCount"`
	Communities int    `json:"communityCount"`
	// LargestShare is the largest community's share of the nodes: the
	// rate of a ranking that ignores the data and names that community.
	LargestShare float64 `json:"largestShare"`
	Tau          float64 `json:"tau"`
	Epsilon      float64 `json:"epsilon"`
	Delta        float64 `json:"delta"`
	Alpha        float64 `json:"alpha"`
	Sources      int     `json:"sources"`
	// Missing is the fraction of sensors that did not report in the
	// trials (Simulation.Missing, or the share Reported leaves out).
	Missing   float64 `json:"missingFraction,omitempty"`
	Sigma     float64 `json:"sigma"`
	Mechanism string  `json:"mechanism,omitempty"` // how σ was calibrated; empty for a fixed σ
	Delta2    float64 `json:"delta2"`
	// Delta2Exact (private runs) tells whether Δ2 is exact or a proven
	// upper bound (a time budget stopped its computation): σ, and with it
	// the rates, are then pessimistic.
	Delta2Exact       *bool   `json:"delta2Exact,omitempty"`
	Private           bool    `json:"private"`
	CommunityAccuracy float64 `json:"communityAccuracy"`
	ExactNodeRate     float64 `json:"exactNodeRate"`
	EMDMean           float64 `json:"emdMean"`
	NoSourceRate      float64 `json:"noSourceRate"`
	TrueShareMean     float64 `json:"trueShareMean"`
	// In90Rate is the share of trials whose source community is in the
	// report's 90% set (top communities holding 90% of the weight),
	// In90Size that set's mean size; a no-source trial scores 0 and size 0.
	In90Rate float64 `json:"in90Rate"`
	In90Size float64 `json:"in90Size"`
	// NoiseDominatedRate is the share of trials whose ranking the posterior
	// rule alone flags as noise-dominated (posterior-to-prior ratio below
	// community.NoiseThreshold: locate's verdict without a forecast).
	NoiseDominatedRate float64   `json:"noiseDominatedRate,omitempty"`
	accuracies         []float64 // per trial, for the forecast's interval
	// namedShares (zeroMass runs) is per trial the named community's
	// share of the nodes: the chance that a uniform source is in it.
	namedShares []float64
	// verdictMasses (with Simulation.verdicts) is each trial's verdict
	// mass: what locate's verdict would forecast at (0: noise).
	verdictMasses []float64
	byCommunity   []CommunityRate
	Seed          uint64 `json:"seed"`
	// Graph and CommunitySource describe the inputs for the record (the
	// caller fills them: a graph spec, "planted", "leiden", "louvain", "file:PATH").
	Graph           string `json:"graph,omitempty"`
	CommunitySource string `json:"communitySource,omitempty"`
	// Example is trial 0's report and true source communities, for plots.
	Example *Trace `json:"-"`
}

// Trace is one trial on a graph.
type Trace struct {
	Report      *community.Report
	Sources     []int
	SourceComms []int
	// Partition is the community of each node (Report's IDs) and Weights
	// the per-node weight ranked (the posterior, else f̂), for pictures.
	Partition []int
	Weights   []float64
}

// Simulate runs a Simulation. One eigendecomposition of L serves
// every trial.
func Simulate(ctx context.Context, e Simulation) (*SimulationResult, error) {
	est, err := e.check()
	if err != nil {
		return nil, err
	}
	g := e.Graph
	part, names, k, err := e.communities()
	if err != nil {
		return nil, err
	}
	res := &SimulationResult{
		Trials: e.Trials, Estimator: est.Name(), Nodes: g.N(), Edges: g.NumEdges(), Communities: k, LargestShare: largestShare(part),
		Tau: e.Tau, Alpha: e.Alpha, Sources: e.Sources, Seed: e.Seed, Missing: e.missingFraction(),
	}
	if err := e.calibrate(res); err != nil {
		return nil, err
	}
	if e.Verdicts && e.verdicts == nil {
		e.verdicts = newVerdictTests(e.Seed, part)
	}
	tr, err := e.newGraphTrials(est, part, names, res.Sigma)
	if err != nil {
		return nil, err
	}
	scores := make([]graphScore, e.Trials)
	done := make([]bool, e.Trials)
	var example *Trace
	start := time.Now()
	var mu sync.Mutex
	completed := 0
	err = trials.Run(ctx, e.Trials, trials.Workers(e.Workers, e.Trials), e.Progress, func(t int) error {
		// A time budget stops new trials once MinTrials are done; which
		// trials ran depends on time only, never on their outcome.
		mu.Lock()
		over := e.TimeBudget > 0 && completed >= max(e.MinTrials, 1) && time.Since(start) > e.TimeBudget
		mu.Unlock()
		if over {
			return nil
		}
		sc, trace, err := tr.run(t)
		if err != nil {
			return fmt.Errorf("graphcloak: trial %d: %w", t, err)
		}
		mu.Lock()
		scores[t], done[t] = sc, true
		completed++
		mu.Unlock()
		if t == 0 {
			example = trace
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var ran []graphScore
	for t, ok := range done {
		if ok {
			ran = append(ran, scores[t])
		}
	}
	res.Trials = len(ran)
	if e.verdicts != nil {
		res.verdictMasses = []float64{}
	}
	res.summarise(ran)
	if e.zeroMass {
		res.namedShares = namedShares(part, ran)
	}
	if e.Sources == 1 {
		comms := make([]int, len(ran))
		for i, sc := range ran {
			comms[i] = sc.srcComm
		}
		res.byCommunity = byCommunity(comms, res.accuracies, part, names, k)
		setNamedElsewhere(res.byCommunity, comms, func(t int, add func(int, float64)) { add(ran[t].named, 1) })
	}
	res.Example = example
	return res, nil
}

// newGraphTrials is what every trial of e shares (est its estimator, part
// and names its communities, σ its noise): the trials drawn from e.Pool
// (one is made when sensors are missing), else in blocks of their own.
func (e *Simulation) newGraphTrials(est recovery.Estimator, part []int, names []string, sigma float64) (*graphTrials, error) {
	tr := &graphTrials{e: e, part: part, names: names, sigma: sigma}
	tr.post, _ = est.(recovery.Posterior)
	tr.est = est
	var err error
	if e.Pool == nil && e.missingFraction() > 0 {
		// Missing sensors are drawn block by block, as the pool draws.
		if e.Pool, err = NewTrialPool(*e); err != nil {
			return nil, err
		}
	}
	if e.Pool != nil {
		if err := e.Pool.fits(e); err != nil {
			return nil, err
		}
		tr.model = e.Pool.model
		_, post := est.(recovery.Posterior)
		mass := e.SourceMass
		if e.zeroMass {
			mass = 0
		}
		tr.draw = func(t int) *trialDraw { return e.Pool.trial(e.trialOffset+t, mass, sigma, post) }
		tr.mass, tr.fast = mass, newPoolScorer(tr, est)
	} else {
		act, model, err := e.trialModels()
		if err != nil {
			return nil, err
		}
		tr.model = model
		tr.draw = newBlockDraws(e, act, model, sigma, est).draw
	}
	tr.solve = trials.Solver(tr.model, sigma, e.Sources, est)
	return tr, nil
}

// trialModels returns what every trial shares: the data come from expm's
// action of exp(−τL); the estimators use recovery's own model, built once
// for all trials.
func (e *Simulation) trialModels() (expm.Action, *recovery.Model, error) {
	act, err := expm.NewAction(e.Graph, e.Tau, expm.Options{Columns: e.Trials})
	if err != nil {
		return nil, nil, err
	}
	model, err := recovery.NewGraphModel(e.Graph, e.Tau, recovery.GraphOptions{})
	if err != nil {
		return nil, nil, err
	}
	return act, model, nil
}

// check validates the experiment and fills in the defaults (one source,
// α = 1); it returns the estimator.
func (e *Simulation) check() (recovery.Estimator, error) {
	if e.Graph == nil {
		return nil, &ParamError{"graph", nil, "is missing"}
	}
	n := e.Graph.N()
	if err := positive("tau", e.Tau); err != nil {
		return nil, err
	}
	if e.Trials < 1 {
		return nil, &ParamError{"trials", e.Trials, "must be at least 1"}
	}
	if e.Sources == 0 {
		e.Sources = 1
	}
	if e.Sources < 1 || e.Sources > n {
		return nil, &ParamError{"sources", e.Sources, fmt.Sprintf("must be in 1..%d (the node count)", n)}
	}
	if e.Alpha == 0 {
		e.Alpha = 1
	}
	if e.SourceMass == 0 {
		e.SourceMass = 1
	}
	if err := positive("sourceMass", e.SourceMass); err != nil {
		return nil, err
	}
	if err := positive("alpha", e.Alpha); err != nil {
		return nil, err
	}
	est, err := recovery.ByName(e.Estimator)
	if err != nil {
		return nil, &ParamError{"estimator", e.Estimator, err.Error()}
	}
	if err := e.checkMissing(); err != nil {
		return nil, err
	}
	return est, nil
}

// checkMissing validates Missing and Reported.
func (e *Simulation) checkMissing() error {
	n := e.Graph.N()
	if !(e.Missing >= 0 && e.Missing < 1) {
		return &ParamError{"missing", e.Missing, "must be a fraction in [0, 1)"}
	}
	if e.Reported == nil {
		return nil
	}
	if e.Missing != 0 {
		return &ParamError{"missing", e.Missing, "must be 0 when the reporting sensors are given"}
	}
	if len(e.Reported) == 0 {
		return &ParamError{"reported", 0, "must name at least one sensor"}
	}
	for k, i := range e.Reported {
		if i < 0 || i >= n || (k > 0 && i <= e.Reported[k-1]) {
			return &ParamError{"reported", i, fmt.Sprintf("must be node indices in [0, %d), sorted, without repeats", n)}
		}
	}
	return nil
}

// missingFraction is the share of sensors that do not report in the
// trials.
func (e *Simulation) missingFraction() float64 {
	if e.Reported != nil {
		return 1 - float64(len(e.Reported))/float64(e.Graph.N())
	}
	return e.Missing
}

// communities returns the partition in canonical ids (Leiden when none is
// given), the communities' names under those ids (nil without names) and
// their number.
func (e *Simulation) communities() (part []int, names []string, k int, err error) {
	n := e.Graph.N()
	part = e.Partition
	if part == nil {
		if part, err = community.Leiden(e.Graph, community.LeidenOptions{Seed: e.Seed}); err != nil {
			return nil, nil, 0, err
		}
	}
	if len(part) != n {
		return nil, nil, 0, &ParamError{"partition", len(part), fmt.Sprintf("has the wrong length (graph has %d nodes)", n)}
	}
	canon, k := community.Canonical(e.Graph, part)
	if e.Names != nil {
		// Carry each community's name over to its canonical id.
		names = make([]string, k)
		for i, c := range part {
			if c < 0 || c >= len(e.Names) {
				return nil, nil, 0, &ParamError{"names", len(e.Names), fmt.Sprintf("do not cover community id %d", c)}
			}
			names[canon[i]] = e.Names[c]
		}
	}
	return canon, names, k, nil
}

// largestShare is the largest community's share of the nodes of a
// canonical partition (ids 0..k−1).
func largestShare(part []int) float64 {
	if len(part) == 0 {
		return 0
	}
	return float64(slices.Max(memberCounts(part))) / float64(len(part))
}

// calibrate sets res.Sigma: the given σ, or the one a release with the
// experiment's ε, δ and mechanism would use (certified Δ2).
func (e *Simulation) calibrate(res *SimulationResult) error {
	if e.Sigma != 0 {
		if err := positive("sigma", e.Sigma); err != nil {
			return err
		}
		res.Sigma = e.Sigma
		return nil
	}
	var sens sensitivity.Result
	if e.Sensitivity != nil {
		sens = *e.Sensitivity
	} else {
		var err error
		if sens, err = sensitivity.Graph(e.Graph, e.Tau, e.Alpha, sensitivity.Options{}); err != nil {
			return err
		}
	}
	cal, err := privacy.Calibrate(privacy.CalibrationParams{Sensitivity: sens.Delta2, Epsilon: e.Epsilon, Delta: e.Delta, Mechanism: e.Mechanism.Resolve()})
	if err != nil {
		return err
	}
	exact := sens.Exact
	res.Sigma, res.Delta2, res.Delta2Exact, res.Private = cal.Sigma, sens.Delta2, &exact, true
	res.Mechanism = cal.Mechanism.String()
	res.Epsilon, res.Delta = e.Epsilon, e.Delta
	return nil
}

// graphTrials holds what every trial of a graph experiment shares.
type graphTrials struct {
	e     *Simulation
	part  []int
	names []string
	sigma float64
	solve func(y []float64) (f, weights []float64, noSource bool, err error)
	// draw is trial t's readings (drawn in blocks, or from a pool); model
	// and post recover from the correlations a block computed (the
	// posterior).
	draw  func(t int) *trialDraw
	model *recovery.Model
	post  recovery.Posterior
	est   recovery.Estimator
	// fast, when set, scores the pool's trials at mass (poolScorer).
	fast *poolScorer
	mass float64
}

// recover estimates trial td's sources: from the correlations its block
// computed when there are any (the posterior), else by the estimator.
func (tr *graphTrials) recover(td *trialDraw) (f, weights []float64, noSource bool, err error) {
	model := tr.model
	if td.err != nil {
		return nil, nil, false, td.err
	}
	if td.model != nil { // missing sensors: the reporting rows' model
		model = td.model
		if td.c0 == nil {
			return trials.Solver(model, tr.sigma, tr.e.Sources, tr.est)(td.y)
		}
	}
	if td.c0 == nil {
		return tr.solve(td.y)
	}
	p := model.Problem(td.y, tr.sigma)
	p.Sources = tr.e.Sources
	r, err := tr.post.FromCorrelations(p, td.c0)
	if err != nil {
		return nil, nil, false, err
	}
	f, weights, noSource = trials.Outcome(r, model.N())
	return f, weights, noSource, nil
}

// graphScore is one trial's score: the share of true source communities
// ranked on top, the share of sources among the heaviest nodes, the
// probability given to the true communities, the EMD (NaN when nothing was
// recovered), and whether no source was detected.
type graphScore struct {
	comm, exact, share, emd float64
	none                    bool
	in90                    bool    // the source's community is in the report's 90% set
	size90                  int     // that set's size
	flagged                 bool    // the posterior rule alone calls the ranking noise-dominated
	srcComm                 int     // the (first) source's community
	verdictMass             float64 // locate's verdict mass (verdictTests; 0: noise)
	named                   int     // the ranking's top community (-1: none)
}

// run simulates trial t (its own seeded stream, drawn with its block):
// random sources of mass e.SourceMass, readings exp(−τL)f0 plus N(0, σ²)
// noise, recovery, ranking and scores.
func (tr *graphTrials) run(t int) (graphScore, *Trace, error) {
	e, g := tr.e, tr.e.Graph
	n := g.N()
	if tr.fast != nil && t > 0 { // trial 0's report is the Example
		if sc, ok := tr.fast.score(tr, e.trialOffset+t, tr.mass); ok {
			return sc, nil, nil
		}
	}
	td := tr.draw(t)
	src, f0 := td.src, td.f0
	f, weights, noSource, err := tr.recover(td)
	if err != nil {
		return graphScore{}, nil, err
	}
	// Trial 0's report is the Example (pictures read its 90% node set;
	// a forecast, noEMD, reads none); the scores read the communities only.
	rank := community.RankCommunities
	if t == 0 && !e.noEMD {
		rank = community.Rank
	}
	rep := rank(g, tr.part, tr.names, weights, noSource || trials.Sum(weights) <= 0)
	// The posterior rule (locate's verdict without a forecast).
	flagged := rep.NoiseDominated(n)
	trueComms := distinctComms(tr.part, src)
	trace := &Trace{Report: rep, Sources: src, SourceComms: trueComms, Partition: tr.part, Weights: weights}
	if rep.NoSource {
		return graphScore{none: true, flagged: flagged, srcComm: trueComms[0], named: -1}, trace, nil
	}
	sc := graphScore{flagged: flagged, srcComm: trueComms[0], named: -1}
	if len(rep.Communities) > 0 {
		sc.named = rep.Communities[0].ID
	}
	if e.verdicts != nil {
		model := tr.model
		if td.model != nil { // missing sensors: the reporting rows' model
			model = td.model
		}
		sc.verdictMass = e.verdicts.verdictMass(model, td.y, td.c0, tr.sigma)
	}
	sc.comm, sc.share = communityScores(rep, trueComms)
	sc.in90, sc.size90 = in90Set(rep, trueComms[0])
	heavy := recovery.TopK(weights, e.Sources)
	for _, s := range src {
		if slices.Contains(heavy, s) {
			sc.exact++
		}
	}
	sc.exact /= float64(e.Sources)
	sc.emd = math.NaN()
	if trials.Sum(f) > 0 && !e.noEMD {
		var unbalanced *recovery.UnbalancedError
		switch sc.emd, err = recovery.EMDGraph(g, trials.Normalised(f0), trials.Normalised(f)); {
		case errors.As(err, &unbalanced):
			// A disconnected graph where f̂ spreads its mass over the
			// components otherwise than the sources: no transport plan,
			// the hop-metric EMD is infinite; the trial has none.
			sc.emd = math.NaN()
		case err != nil:
			return graphScore{}, nil, err
		}
	}
	return sc, trace, nil
}

// in90Set reports whether community c is in the smallest set of top-ranked
// communities whose shares sum to at least 0.9, and that set's size.
func in90Set(rep *community.Report, c int) (bool, int) {
	total, in := 0.0, false
	for i, r := range rep.Communities {
		total += r.Share
		in = in || r.ID == c
		if total >= 0.9 {
			return in, i + 1
		}
	}
	return in, len(rep.Communities)
}

// communityScores returns the share of the true communities that are among
// the top len(trueComms) of the ranking, and the total probability the
// ranking gives them.
func communityScores(rep *community.Report, trueComms []int) (comm, share float64) {
	top := make(map[int]bool)
	for r := 0; r < len(trueComms) && r < len(rep.Communities); r++ {
		top[rep.Communities[r].ID] = true
	}
	shares := make(map[int]float64)
	for _, c := range rep.Communities {
		shares[c.ID] = c.Share
	}
	for _, c := range trueComms {
		if top[c] {
			comm++
		}
		share += shares[c]
	}
	return comm / float64(len(trueComms)), share
}

// summarise averages the trials' scores into res (the EMD over the trials
// that recovered something).
func (res *SimulationResult) summarise(scores []graphScore) {
	var emds []float64
	none := 0
	for _, sc := range scores {
		res.CommunityAccuracy += sc.comm
		res.ExactNodeRate += sc.exact
		res.TrueShareMean += sc.share
		if sc.in90 {
			res.In90Rate++
		}
		res.In90Size += float64(sc.size90)
		if sc.flagged {
			res.NoiseDominatedRate++
		}
		if sc.none {
			none++
		} else if !math.IsNaN(sc.emd) {
			emds = append(emds, sc.emd)
		}
	}
	T := float64(len(scores))
	res.CommunityAccuracy /= T
	res.ExactNodeRate /= T
	res.TrueShareMean /= T
	res.In90Rate /= T
	res.In90Size /= T
	res.NoiseDominatedRate /= T
	res.accuracies = make([]float64, len(scores))
	for i, sc := range scores {
		res.accuracies[i] = sc.comm
	}
	if res.verdictMasses != nil { // Simulate asked for them
		res.verdictMasses = make([]float64, len(scores))
		for i, sc := range scores {
			res.verdictMasses[i] = sc.verdictMass
		}
	}
	res.NoSourceRate = float64(none) / T
	res.EMDMean, _, _ = trials.Stats(emds)
}

// distinctComms returns the distinct communities of the nodes, in order.
func distinctComms(part, nodes []int) []int {
	var out []int
	for _, s := range nodes {
		if !slices.Contains(out, part[s]) {
			out = append(out, part[s])
		}
	}
	return out
}

// MarshalJSON writes an undefined EMD mean as null.
func (r *SimulationResult) MarshalJSON() ([]byte, error) {
	type plain SimulationResult
	return json.Marshal(struct {
		*plain
		EMDMean *float64 `json:"emdMean"`
	}{(*plain)(r), trials.FiniteOrNil(r.EMDMean)})
}

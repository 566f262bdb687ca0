package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// Experiments simulate the release mechanism to measure utility and
// privacy; they are not releases. Their noise is drawn from a seeded
// math/rand/v2 PCG stream so that every number they report can be
// reproduced from the seed, and they never charge a privacy ledger.
// Trial t uses its own stream PCG(seed, t), so results do not depend on
// the number of workers.

// ParamError reports an invalid experiment parameter.
type ParamError struct {
	Param  string
	Value  any
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("experiment: parameter %s = %v %s", e.Param, e.Value, e.Reason)
}

// simulatedMechanism maps the zero value to the discrete Gaussian, so an
// experiment simulates the noise level a real release would use.
func simulatedMechanism(m privacy.Mechanism) privacy.Mechanism {
	if m == privacy.MechanismDefault {
		return privacy.MechanismDiscrete
	}
	return m
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return &ParamError{name, v, "must be positive and finite"}
	}
	return nil
}

// Line is the paper's Figure 1 setting: unit sources on the grid
// x_j = j/n of the unit interval, m sensors at s_i = i/m, heat kernel at time
// T, Gaussian noise, recovery, EMD against the truth.
type Line struct {
	N, M int     // source grid points and sensors (paper: 100, 50)
	T    float64 // diffusion time μt (paper: 0.05)
	// Sigma is a fixed, non-private noise level (paper: 0.1). When zero, σ
	// is calibrated privately from Epsilon and Delta with Mechanism on
	// Δ2 = sensitivity.Line(N, M, T, Alpha).
	Sigma          float64
	Epsilon, Delta float64
	// Mechanism calibrates σ; the zero value means the discrete Gaussian
	// with CKS20 accounting, the σ that privacy.Release publishes with.
	Mechanism privacy.Mechanism
	Alpha     float64 // neighbour EMD radius; default 1/N (one grid step of unit mass)
	// Sources are source positions in (0, 1], each snapped to the nearest
	// grid point j/N and carrying unit mass (paper: 0.24, 0.76).
	Sources   []float64
	Trials    int    // ≥ 1
	Estimator string // recovery.ByName; "" = recovery.Default
	Seed      uint64
	Workers   int // parallel trials; default GOMAXPROCS
	// Progress, when non-nil, is called after each finished trial.
	Progress func(done, total int)
}

// LineResult summarises a line experiment. EMD statistics are over the
// trials with a non-zero estimate (the others count in NoSourceRate).
type LineResult struct {
	Trials       int       `json:"trials"`
	Estimator    string    `json:"estimator"`
	N            int       `json:"n"`
	M            int       `json:"m"`
	T            float64   `json:"tau"`
	Sources      []float64 `json:"sources"` // snapped positions
	Sigma        float64   `json:"sigma"`
	Mechanism    string    `json:"mechanism,omitempty"` // how σ was calibrated; empty for a fixed σ
	Private      bool      `json:"private"`
	Epsilon      float64   `json:"epsilon,omitempty"`
	Delta        float64   `json:"delta,omitempty"`
	Delta2       float64   `json:"delta2,omitempty"`
	EMDMean      float64   `json:"emdMean"`
	EMDMax       float64   `json:"emdMax"`
	EMDStd       float64   `json:"emdStd"`
	NoSourceRate float64   `json:"noSourceRate"`
	Seed         uint64    `json:"seed"`
	// Example is trial 0, for plotting: X are the grid points, F0 the true
	// sources, FHat the estimate.
	Example *LineTrace `json:"-"`
	// EMDs are the EMDs of the trials with a non-zero estimate, in trial
	// order, for the distribution plot.
	EMDs []float64 `json:"-"`
}

// LineTrace is one trial on the line.
type LineTrace struct {
	X, F0, FHat []float64
}

func workers(w, trials int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(1, min(w, trials))
}

// trialRNG is the noise and source stream of trial t.
func trialRNG(seed uint64, t int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d^uint64(t)))
}

// forTrials runs fn(t) for t = 0..trials−1 on w goroutines, stopping at
// the first error or when ctx is cancelled. progress, when non-nil, is
// called after each finished trial (serialised).
func forTrials(ctx context.Context, trials, w int, progress func(done, total int), fn func(t int) error) error {
	var (
		mu    sync.Mutex
		next  int
		done  int
		first error
		wg    sync.WaitGroup
	)
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= trials {
					mu.Unlock()
					return
				}
				if err := ctx.Err(); err != nil {
					first = err
					mu.Unlock()
					return
				}
				t := next
				next++
				mu.Unlock()
				err := fn(t)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				done++
				if progress != nil {
					progress(done, trials)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// RunLine runs a Line: for each trial ỹ = A f0 + N(0, σ²I),
// f̂ from the estimator, and EMD(f0/‖f0‖₁, f̂/‖f̂‖₁) on the grid (spacing 1/N).
func RunLine(ctx context.Context, e Line) (*LineResult, error) {
	if e.N < 2 {
		return nil, &ParamError{"n", e.N, "must be at least 2"}
	}
	if e.M < 1 {
		return nil, &ParamError{"m", e.M, "must be at least 1"}
	}
	if err := positive("T", e.T); err != nil {
		return nil, err
	}
	if e.Trials < 1 {
		return nil, &ParamError{"trials", e.Trials, "must be at least 1"}
	}
	if len(e.Sources) == 0 {
		return nil, &ParamError{"sources", e.Sources, "must name at least one position"}
	}
	if e.Alpha == 0 {
		e.Alpha = 1 / float64(e.N)
	}
	if err := positive("alpha", e.Alpha); err != nil {
		return nil, err
	}
	est, err := recovery.ByName(e.Estimator)
	if err != nil {
		return nil, &ParamError{"estimator", e.Estimator, err.Error()}
	}
	res := &LineResult{Trials: e.Trials, Estimator: est.Name(), N: e.N, M: e.M, T: e.T, Seed: e.Seed}
	f0 := make([]float64, e.N)
	for _, x := range e.Sources {
		if !(x > 0 && x <= 1) {
			return nil, &ParamError{"sources", x, "must lie in (0, 1]"}
		}
		j := int(math.Round(x*float64(e.N))) - 1
		j = max(0, min(e.N-1, j))
		if f0[j] != 0 {
			return nil, &ParamError{"sources", e.Sources, "name the same grid point twice"}
		}
		f0[j] = 1
		res.Sources = append(res.Sources, float64(j+1)/float64(e.N))
	}
	switch {
	case e.Sigma != 0:
		if err := positive("sigma", e.Sigma); err != nil {
			return nil, err
		}
		res.Sigma = e.Sigma
	default:
		sens, err := sensitivity.Line(e.N, e.M, e.T, e.Alpha)
		if err != nil {
			return nil, err
		}
		cal, err := privacy.Calibrate(privacy.CalibrationParams{Sensitivity: sens.Delta2, Epsilon: e.Epsilon, Delta: e.Delta, Mechanism: simulatedMechanism(e.Mechanism)})
		if err != nil {
			return nil, err
		}
		res.Sigma, res.Private, res.Delta2 = cal.Sigma, true, sens.Delta2
		res.Mechanism = cal.Mechanism.String()
		res.Epsilon, res.Delta = e.Epsilon, e.Delta
	}
	A, err := expm.HeatKernel1D(e.M, e.N, e.T)
	if err != nil {
		return nil, err
	}
	y := make([]float64, e.M)
	mat.NewVecDense(e.M, y).MulVec(A, mat.NewVecDense(e.N, f0))
	model, err := recovery.NewLineModel(e.N, e.M, e.T)
	if err != nil {
		return nil, err
	}
	solve := newSolver(model, res.Sigma, len(e.Sources), est)
	spacing := 1 / float64(e.N)
	emd := make([]float64, e.Trials)
	none := make([]bool, e.Trials)
	var example []float64
	err = forTrials(ctx, e.Trials, workers(e.Workers, e.Trials), e.Progress, func(t int) error {
		rng := trialRNG(e.Seed, t)
		yt := make([]float64, e.M)
		for i := range yt {
			yt[i] = y[i] + res.Sigma*rng.NormFloat64()
		}
		f, _, noSource, err := solve(yt)
		if err != nil {
			return fmt.Errorf("graphcloak: trial %d: %w", t, err)
		}
		if t == 0 {
			example = f
		}
		if noSource || sum(f) <= 0 {
			none[t] = true
			return nil
		}
		d, err := recovery.EMDLine(normalised(f0), normalised(f), spacing)
		if err != nil {
			return err
		}
		emd[t] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	var vals []float64
	for t := range emd {
		if !none[t] {
			vals = append(vals, emd[t])
		}
	}
	res.NoSourceRate = float64(e.Trials-len(vals)) / float64(e.Trials)
	res.EMDMean, res.EMDStd, res.EMDMax = stats(vals)
	res.EMDs = vals
	x := make([]float64, e.N)
	for j := range x {
		x[j] = float64(j+1) / float64(e.N)
	}
	if example == nil {
		example = make([]float64, e.N)
	}
	res.Example = &LineTrace{X: x, F0: f0, FHat: example}
	return res, nil
}

// finiteOrNil maps NaN (an undefined statistic, e.g. the EMD mean when no
// trial detected a source) to JSON null.
func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// MarshalJSON writes undefined EMD statistics as null.
func (r *LineResult) MarshalJSON() ([]byte, error) {
	type plain LineResult
	return json.Marshal(struct {
		*plain
		EMDMean *float64 `json:"emdMean"`
		EMDMax  *float64 `json:"emdMax"`
		EMDStd  *float64 `json:"emdStd"`
	}{(*plain)(r), finiteOrNil(r.EMDMean), finiteOrNil(r.EMDMax), finiteOrNil(r.EMDStd)})
}

// MarshalJSON writes an undefined EMD mean as null.
func (r *GraphResult) MarshalJSON() ([]byte, error) {
	type plain GraphResult
	return json.Marshal(struct {
		*plain
		EMDMean *float64 `json:"emdMean"`
	}{(*plain)(r), finiteOrNil(r.EMDMean)})
}

// stats returns mean, standard deviation and maximum (NaN for no values).
func stats(v []float64) (mean, std, mx float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	std = math.Sqrt(std / float64(len(v)))
	return mean, std, slices.Max(v)
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// normalised returns max(v,0)/Σ max(v,0) (v itself when the sum is zero).
func normalised(v []float64) []float64 {
	out := make([]float64, len(v))
	s := 0.0
	for i, x := range v {
		out[i] = max(x, 0)
		s += out[i]
	}
	if s > 0 {
		for i := range out {
			out[i] /= s
		}
	}
	return out
}

// Graph plants unit sources at uniformly random nodes, releases
// ỹ = exp(−τL) f0 + N(0, σ²I) with σ calibrated to Δ2 (the analytic
// Gaussian), recovers with the estimator and scores the result against a
// partition.
type Graph struct {
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
	// (GraphResult.Trials) and its intervals widen accordingly.
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
}

// GraphResult summarises a graph experiment.
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
type GraphResult struct {
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
	Sigma        float64 `json:"sigma"`
	Mechanism    string  `json:"mechanism,omitempty"` // how σ was calibrated; empty for a fixed σ
	Delta2       float64 `json:"delta2"`
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
	Seed               uint64    `json:"seed"`
	// Graph and CommunitySource describe the inputs for the record (the
	// caller fills them: a graph spec, "planted", "leiden", "louvain", "file:PATH").
	Graph           string `json:"graph,omitempty"`
	CommunitySource string `json:"communitySource,omitempty"`
	// Example is trial 0's report and true source communities, for plots.
	Example *GraphTrace `json:"-"`
}

// GraphTrace is one trial on a graph.
type GraphTrace struct {
	Report      *community.Report
	Sources     []int
	SourceComms []int
	// Partition is the community of each node (Report's IDs) and Weights
	// the per-node weight ranked (the posterior, else f̂), for pictures.
	Partition []int
	Weights   []float64
}

// RunGraph runs a Graph. One eigendecomposition of L serves
// every trial.
func RunGraph(ctx context.Context, e Graph) (*GraphResult, error) {
	est, err := e.check()
	if err != nil {
		return nil, err
	}
	g := e.Graph
	part, names, k, err := e.communities()
	if err != nil {
		return nil, err
	}
	res := &GraphResult{
		Trials: e.Trials, Estimator: est.Name(), Nodes: g.N(), Edges: g.NumEdges(), Communities: k, LargestShare: largestShare(part, k),
		Tau: e.Tau, Alpha: e.Alpha, Sources: e.Sources, Seed: e.Seed,
	}
	if err := e.calibrate(res); err != nil {
		return nil, err
	}
	act, model, err := e.trialModels()
	if err != nil {
		return nil, err
	}
	tr := graphTrials{e: &e, part: part, names: names, act: act, sigma: res.Sigma,
		solve: newSolver(model, res.Sigma, e.Sources, est)}
	scores := make([]graphScore, e.Trials)
	done := make([]bool, e.Trials)
	var example *GraphTrace
	start := time.Now()
	var mu sync.Mutex
	completed := 0
	err = forTrials(ctx, e.Trials, workers(e.Workers, e.Trials), e.Progress, func(t int) error {
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
	res.summarise(ran)
	res.Example = example
	return res, nil
}

// trialModels returns what every trial shares: the data come from expm's
// action of exp(−τL); the estimators use recovery's own model, built once
// for all trials.
func (e *Graph) trialModels() (expm.Action, *recovery.Model, error) {
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
func (e *Graph) check() (recovery.Estimator, error) {
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
	return est, nil
}

// communities returns the partition in canonical ids (Leiden when none is
// given), the communities' names under those ids (nil without names) and
// their number.
func (e *Graph) communities() (part []int, names []string, k int, err error) {
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
	canon, k := community.Canonical(part)
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
// canonical partition with k communities (ids 0..k−1).
func largestShare(part []int, k int) float64 {
	if len(part) == 0 {
		return 0
	}
	size := make([]int, k)
	for _, c := range part {
		size[c]++
	}
	return float64(slices.Max(size)) / float64(len(part))
}

// calibrate sets res.Sigma: the given σ, or the one a release with the
// experiment's ε, δ and mechanism would use (certified Δ2).
func (e *Graph) calibrate(res *GraphResult) error {
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
	cal, err := privacy.Calibrate(privacy.CalibrationParams{Sensitivity: sens.Delta2, Epsilon: e.Epsilon, Delta: e.Delta, Mechanism: simulatedMechanism(e.Mechanism)})
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
	e     *Graph
	part  []int
	names []string
	act   expm.Action
	sigma float64
	solve func(y []float64) (f, weights []float64, noSource bool, err error)
}

// graphScore is one trial's score: the share of true source communities
// ranked on top, the share of sources among the heaviest nodes, the
// probability given to the true communities, the EMD (NaN when nothing was
// recovered), and whether no source was detected.
type graphScore struct {
	comm, exact, share, emd float64
	none                    bool
	in90                    bool // the source's community is in the report's 90% set
	size90                  int  // that set's size
	flagged                 bool // the posterior rule alone calls the ranking noise-dominated
}

// run simulates trial t (its own seeded stream): random sources of mass
// e.SourceMass,
// readings exp(−τL)f0 plus N(0, σ²) noise, recovery, ranking and scores.
func (tr *graphTrials) run(t int) (graphScore, *GraphTrace, error) {
	e, g := tr.e, tr.e.Graph
	n := g.N()
	rng := trialRNG(e.Seed, t)
	src := rng.Perm(n)[:e.Sources]
	f0 := make([]float64, n)
	for _, s := range src {
		f0[s] = e.SourceMass
	}
	yt := make([]float64, n)
	tr.act.Apply(yt, f0, 1)
	for i := range yt {
		yt[i] += tr.sigma * rng.NormFloat64()
	}
	f, weights, noSource, err := tr.solve(yt)
	if err != nil {
		return graphScore{}, nil, err
	}
	rep := community.Rank(g, tr.part, tr.names, weights, noSource || sum(weights) <= 0)
	// The posterior rule (locate's verdict without a forecast).
	flagged := rep.NoiseDominated(n)
	trueComms := distinctComms(tr.part, src)
	trace := &GraphTrace{Report: rep, Sources: src, SourceComms: trueComms, Partition: tr.part, Weights: weights}
	if rep.NoSource {
		return graphScore{none: true, flagged: flagged}, trace, nil
	}
	sc := graphScore{flagged: flagged}
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
	if sum(f) > 0 {
		var unbalanced *recovery.UnbalancedError
		switch sc.emd, err = recovery.EMDGraph(g, normalised(f0), normalised(f)); {
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
func (res *GraphResult) summarise(scores []graphScore) {
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
	res.NoSourceRate = float64(none) / T
	res.EMDMean, _, _ = stats(emds)
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

// newSolver returns the per-trial recovery: the estimate's mass f̂, the
// per-node weights to rank (the posterior when the estimator has one, else
// f̂), and whether the estimator reported no detectable source (NoSource,
// or Infeasible: no f in the box fits the data). A BPDN run that stops
// short of its certified gap still returns its estimate, which is used.
func newSolver(model *recovery.Model, sigma float64, sources int, est recovery.Estimator) func(y []float64) (f, weights []float64, noSource bool, err error) {
	return func(y []float64) ([]float64, []float64, bool, error) {
		p := model.Problem(y, sigma)
		p.Sources = sources
		r, err := recovery.Solve(est, p)
		if err != nil {
			return nil, nil, false, err
		}
		if r.NoSource() {
			zero := make([]float64, model.N())
			return zero, zero, true, nil
		}
		return r.F, r.Weights(), false, nil
	}
}

package forecast

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/internal/trials"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// AnswerSimulation simulates the private-answer mode: the operator holds the
// readings y = exp(−τL)e_s (+ sensor noise of SensorSigma, default none),
// recovers the source ŝ with Estimator, and publishes one community drawn
// from the answer mechanism calibrated to (Epsilon, Alpha)
// (privacy.CalibrateAnswer). An analyst who sees the answer o forms the
// posterior P(c | o) over communities from the public mechanism.
type AnswerSimulation struct {
	Graph     *Simulation // the graph, partition, τ, trials, seed, estimator (its ε, δ, σ and Mechanism are ignored)
	Epsilon   float64
	Alpha     float64 // default 1
	Cap       int     // distance cap; 0 chooses (privacy.CalibrateAnswer)
	Geometry  *privacy.CommunityGeometry
	Calibrate *privacy.AnswerCalibration // when non-nil, used instead of calibrating
	// SensorSigma is the operator's own measurement noise (not private).
	SensorSigma float64
	// Draws is how many answers are drawn per trial for RealizedRate
	// (default 1). One draw per trial adds the answer's own Bernoulli
	// noise to the sources': 200 draws at a rate near 0.5 have a 95%
	// interval of ±7 points, too wide to check a forecast to ±5.
	Draws int
	// Scored, when set, is told AnswerSweep's progress through its ε once
	// the trials are done: each ε is scored and its answer calibrated.
	Scored func(done, total int)
}

// AnswerSimulationResult summarises an AnswerSimulation.
// CommunityAccuracy is the mean over trials of P(published = the source's
// community | ŝ), exact for the mechanism (only the source and the recovery are simulated);
// RecoveryRate the share of trials whose recovered source lies in the
// source's community; In90Rate the share of trials whose true community is
// in the analyst's 90% set for a sampled answer, In90Size that set's mean
// size.
type AnswerSimulationResult struct {
	Trials            int                       `json:"trials"`
	Nodes             int                       `json:"nodeCount"`
	Communities       int                       `json:"communityCount"`
	LargestShare      float64                   `json:"largestShare"` // as SimulationResult's
	Tau               float64                   `json:"tau"`
	Calibration       privacy.AnswerCalibration `json:"calibration"`
	CommunityAccuracy float64                   `json:"communityAccuracy"`
	RecoveryRate      float64                   `json:"recoveryRate"`
	// RealizedRate is the share of sampled answers that were right (the
	// rate an observer of these answers would count; AnswerSimulation.Draws per
	// trial, the first of which the 90% set is read for).
	RealizedRate float64   `json:"realizedRate"`
	In90Rate     float64   `json:"in90Rate"`
	In90Size     float64   `json:"in90Size"`
	Seed         uint64    `json:"seed"`
	Estimator    string    `json:"estimator"`
	perTrial     []float64 // P(right) per trial
	byCommunity  []CommunityRate
	low, high    float64                    // 95% interval of CommunityAccuracy
	geometry     *privacy.CommunityGeometry // for the caller's reuse
}

// Geometry returns the community geometry the simulation used.
func (r *AnswerSimulationResult) Geometry() *privacy.CommunityGeometry { return r.geometry }

// SimulateAnswer runs an AnswerSimulation.
func SimulateAnswer(ctx context.Context, a AnswerSimulation) (*AnswerSimulationResult, error) {
	rs, err := a.recover(ctx)
	if err != nil {
		return nil, err
	}
	return rs.score(ctx, a.Epsilon, a.Alpha, a.Cap, a.Calibrate)
}

// AnswerSweep runs an AnswerSimulation at every ε, simulating the
// sources and their recovery once (they do not depend on ε).
func AnswerSweep(ctx context.Context, a AnswerSimulation, epsilons []float64) ([]*AnswerSimulationResult, error) {
	rs, err := a.recover(ctx)
	if err != nil {
		return nil, err
	}
	scored := a.Scored
	if scored == nil {
		scored = func(int, int) {}
	}
	scored(0, len(epsilons))
	out := make([]*AnswerSimulationResult, len(epsilons))
	for i, eps := range epsilons {
		if out[i], err = rs.score(ctx, eps, a.Alpha, a.Cap, nil); err != nil {
			return nil, err
		}
		scored(i+1, len(epsilons))
	}
	return out, nil
}

// recoveredSources are the simulated trials of an answer experiment: the
// source of each trial and the operator's recovered source.
type recoveredSources struct {
	e         *Simulation
	cg        *privacy.CommunityGeometry
	k         int
	names     []string // the communities' names under cg's ids (nil: none)
	estimator string
	draws     int
	src, hat  []int
}

// recover simulates the trials' sources and the operator's recovery.
func (a AnswerSimulation) recover(ctx context.Context) (*recoveredSources, error) {
	e := a.Graph
	if e == nil {
		return nil, &ParamError{"graph", nil, "is missing"}
	}
	est, err := e.check()
	if err != nil {
		return nil, err
	}
	if e.Sources != 1 {
		return nil, &ParamError{"sources", e.Sources, "must be 1 for a private answer (one community is published)"}
	}
	part, names, k, err := e.communities()
	if err != nil {
		return nil, err
	}
	g := e.Graph
	cg := a.Geometry
	if cg == nil {
		if cg, err = privacy.NewCommunityGeometry(ctx, g, part); err != nil {
			return nil, err
		}
	}
	act, model, err := e.trialModels()
	if err != nil {
		return nil, err
	}
	// The operator's posterior on noiseless readings is a point mass at the
	// likelihood maximiser; a tiny σ keeps it numerically one. The
	// operator scores its candidates exactly (recovery.ForOperator), which
	// costs a block action per recovery. On noiseless readings the exact
	// likelihood peaks at the true source, so when the plain estimate
	// already names it the refined one does too: the refinement runs only
	// where the plain estimate missed (always, with sensor noise).
	sigma := max(a.SensorSigma, 1e-9)
	plain, refined := trials.Solver(model, sigma, 1, est), trials.Solver(model, sigma, 1, recovery.ForOperator(est))
	// Each trial's source (its own stream), the action and — for the
	// posterior — the correlations run 32 trials at a time (blockDraws),
	// with the sensors' noise as the readings' noise.
	unit := *e
	unit.SourceMass = 1
	draws := newBlockDraws(&unit, act, model, a.SensorSigma, est)
	post, _ := est.(recovery.Posterior)
	rs := &recoveredSources{e: e, cg: cg, k: k, names: geometryNames(cg.Partition(), part, names), estimator: est.Name(), draws: max(a.Draws, 1)}
	src, hat := make([]int, e.Trials), make([]int, e.Trials)
	done := make([]bool, e.Trials)
	start := time.Now()
	var mu sync.Mutex
	completed := 0
	err = trials.Run(ctx, e.Trials, trials.Workers(e.Workers, e.Trials), e.Progress, func(t int) error {
		mu.Lock() // the time budget, as in Simulate
		over := e.TimeBudget > 0 && completed >= max(e.MinTrials, 1) && time.Since(start) > e.TimeBudget
		mu.Unlock()
		if over {
			return nil
		}
		td := draws.draw(t)
		s, y := td.src[0], td.y
		var w []float64
		var none bool
		var err error
		if td.c0 != nil { // the posterior, from the block's correlations
			p := model.Problem(y, sigma)
			p.Sources = 1
			var r *recovery.Estimate
			if r, err = post.FromCorrelations(p, td.c0); err == nil {
				_, w, none = trials.Outcome(r, model.N())
			}
		} else {
			_, w, none, err = plain(y)
		}
		if err == nil && (a.SensorSigma > 0 || none || argmaxInt(w) != s) {
			_, w, none, err = refined(y)
		}
		if err != nil {
			return fmt.Errorf("graphcloak: trial %d: %w", t, err)
		}
		mu.Lock()
		src[t], hat[t], done[t] = s, s, true
		if !none {
			hat[t] = argmaxInt(w)
		}
		completed++
		mu.Unlock()
		return nil
	})
	for t, ok := range done {
		if ok {
			rs.src, rs.hat = append(rs.src, src[t]), append(rs.hat, hat[t])
		}
	}
	return rs, err
}

// score evaluates the answer mechanism at ε on the recovered trials.
// The accuracy uses the exact mean over all nodes of P(comm(s) | s)
// (AnswerCalibration.Accuracy) as a control variate: the trials only
// estimate what the recovery errors take off it, so the interval is narrow
// when the recovery is good.
func (rs *recoveredSources) score(ctx context.Context, eps, alpha float64, capDist int, fixed *privacy.AnswerCalibration) (*AnswerSimulationResult, error) {
	if alpha == 0 {
		alpha = 1
	}
	var cal privacy.AnswerCalibration
	var err error
	if fixed != nil {
		cal = *fixed
	} else if cal, err = privacy.CalibrateAnswer(ctx, rs.cg, eps, alpha, capDist); err != nil {
		return nil, err
	}
	e, cg := rs.e, rs.cg
	T := len(rs.src)
	res := &AnswerSimulationResult{Trials: T, Nodes: cg.N(), Communities: rs.k, LargestShare: largestShare(cg.Partition()), Tau: e.Tau, Calibration: cal,
		Seed: e.Seed, Estimator: rs.estimator, perTrial: make([]float64, T), geometry: cg}
	var cache posteriorCache
	diffs := make([]float64, T)
	named := make([][]float64, T) // each trial's chance of naming each community
	for t := range T {
		s, hat := rs.src[t], rs.hat[t]
		truth := cg.Community(s)
		probs := cal.ProbabilitiesAt(cg, hat)
		named[t] = probs
		res.perTrial[t] = probs[truth]
		if hat != s {
			diffs[t] = probs[truth] - cal.ProbabilitiesAt(cg, s)[truth]
		}
		if cg.Community(hat) == truth {
			res.RecoveryRate++
		}
		// The analyst's side: sampled answers, and the first one's 90% set.
		rng := trials.RNG(e.Seed^0xa5a5, t)
		o := sampleIndex(probs, rng.Float64())
		hits := 0
		if o == truth {
			hits++
		}
		for range rs.draws - 1 {
			if sampleIndex(probs, rng.Float64()) == truth {
				hits++
			}
		}
		res.RealizedRate += float64(hits) / float64(rs.draws)
		set := recovery.Top90(cache.get(cal, cg, o))
		if slices.Contains(set, truth) {
			res.In90Rate++
		}
		res.In90Size += float64(len(set))
	}
	res.CommunityAccuracy, res.low, res.high = controlledRate(cal.Accuracy, diffs)
	comms := make([]int, T)
	for t, s := range rs.src {
		comms[t] = cg.Community(s)
	}
	res.byCommunity = byCommunity(comms, res.perTrial, cg.Partition(), rs.names, rs.k)
	setNamedElsewhere(res.byCommunity, comms, func(t int, add func(int, float64)) {
		for c, p := range named[t] {
			add(c, p)
		}
	})
	fT := float64(T)
	res.RecoveryRate /= fT
	res.RealizedRate /= fT
	res.In90Rate /= fT
	res.In90Size /= fT
	return res, nil
}

// controlledRate is a rate exact (over every source) plus the mean of the
// trials' differences from it (diffs, 0 where a trial matched the exact
// case), in its 95% interval: the differences' normal interval, widened
// with few nonzero ones to what unseen ones could take off (the Wilson
// upper end of their rate times exact).
func controlledRate(exact float64, diffs []float64) (rate, lo, hi float64) {
	mean, sd := meanSD(diffs)
	T := float64(len(diffs))
	rate = exact + mean
	half := Z95 * sd / math.Sqrt(T)
	errs := 0.0
	for _, d := range diffs {
		if d != 0 {
			errs++
		}
	}
	_, errHi := Wilson(errs, T, Z95)
	half = math.Max(half, (errHi-errs/T)*exact)
	return rate, math.Max(0, rate-half), math.Min(1, rate+half)
}

// meanSD returns the mean and sample standard deviation.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	if len(v) > 1 {
		sd = math.Sqrt(sd / float64(len(v)-1))
	}
	return mean, sd
}

// posteriorCache computes the analyst's posterior once per answer
// (trials run in parallel).
type posteriorCache struct {
	mu   sync.Mutex
	post map[int][]float64
}

func (c *posteriorCache) get(cal privacy.AnswerCalibration, cg *privacy.CommunityGeometry, o int) []float64 {
	c.mu.Lock()
	p, ok := c.post[o]
	c.mu.Unlock()
	if ok {
		return p
	}
	p = cal.AnswerPosterior(cg, o)
	c.mu.Lock()
	if c.post == nil {
		c.post = map[int][]float64{}
	}
	c.post[o] = p
	c.mu.Unlock()
	return p
}

func argmaxInt(w []float64) int {
	best := 0
	for i, v := range w {
		if v > w[best] {
			best = i
		}
	}
	return best
}

// sampleIndex draws an index from the distribution p with the uniform u
// (simulation only: released answers use privacy.SampleAnswer).
func sampleIndex(p []float64, u float64) int {
	acc := 0.0
	for i, v := range p {
		acc += v
		if u < acc {
			return i
		}
	}
	return len(p) - 1
}

// meanInterval returns a 95% interval for the mean of values in [0, 1]:
// the Wilson interval with the sum as successes (their variance is at most
// that of Bernoulli trials with the same mean).
func meanInterval(v []float64) (lo, hi float64) {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return Wilson(s, float64(len(v)), Z95)
}

// geometryNames is the names of part's communities (names, or their ids
// when nil: community.Canonical's names) under geom's ids for the same
// communities: the geometry numbers them in index order, and the forecast
// must call each one what communities and locate call it.
func geometryNames(geom, part []int, names []string) []string {
	k := 0
	for _, c := range geom {
		k = max(k, c+1)
	}
	out := make([]string, k)
	for i, c := range geom {
		out[c] = strconv.Itoa(part[i])
		if part[i] < len(names) {
			out[c] = names[part[i]]
		}
	}
	return out
}

package experiment

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Answer simulates the private-answer mode: the operator holds the
// readings y = exp(−τL)e_s (+ sensor noise of SensorSigma, default none),
// recovers the source ŝ with Estimator, and publishes one community drawn
// from the answer mechanism calibrated to (Epsilon, Alpha)
// (privacy.CalibrateAnswer). An analyst who sees the answer o forms the
// posterior P(c | o) over communities from the public mechanism.
type Answer struct {
	Graph     *Graph // the graph, partition, τ, trials, seed, estimator (its ε, δ, σ and Mechanism are ignored)
	Epsilon   float64
	Alpha     float64 // default 1
	Cap       int     // distance cap; 0 chooses (privacy.CalibrateAnswer)
	Geometry  *privacy.CommunityGeometry
	Calibrate *privacy.AnswerCalibration // when non-nil, used instead of calibrating
	// SensorSigma is the operator's own measurement noise (not private).
	SensorSigma float64
}

// AnswerResult summarises an answer experiment. CommunityAccuracy is the
// mean over trials of P(published = the source's community | ŝ), exact
// for the mechanism (only the source and the recovery are simulated);
// RecoveryRate the share of trials whose recovered source lies in the
// source's community; In90Rate the share of trials whose true community is
// in the analyst's 90% set for a sampled answer, In90Size that set's mean
// size.
type AnswerResult struct {
	Trials            int                        `json:"trials"`
	Nodes             int                        `json:"nodeCount"`
	Communities       int                        `json:"communityCount"`
	Tau               float64                    `json:"tau"`
	Calibration       privacy.AnswerCalibration  `json:"calibration"`
	CommunityAccuracy float64                    `json:"communityAccuracy"`
	RecoveryRate      float64                    `json:"recoveryRate"`
	In90Rate          float64                    `json:"in90Rate"`
	In90Size          float64                    `json:"in90Size"`
	Seed              uint64                     `json:"seed"`
	Estimator         string                     `json:"estimator"`
	perTrial          []float64                  // P(right) per trial, for the interval
	geometry          *privacy.CommunityGeometry // for the caller's reuse
}

// Geometry returns the community geometry the experiment used.
func (r *AnswerResult) Geometry() *privacy.CommunityGeometry { return r.geometry }

// RunAnswer runs an Answer experiment.
func RunAnswer(ctx context.Context, a Answer) (*AnswerResult, error) {
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
	part, _, k, err := e.communities()
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
	if a.Alpha == 0 {
		a.Alpha = 1
	}
	var cal privacy.AnswerCalibration
	if a.Calibrate != nil {
		cal = *a.Calibrate
	} else if cal, err = privacy.CalibrateAnswer(ctx, cg, a.Epsilon, a.Alpha, a.Cap); err != nil {
		return nil, err
	}
	act, err := expm.NewAction(g, e.Tau, expm.Options{Columns: e.Trials})
	if err != nil {
		return nil, err
	}
	model, err := recovery.NewGraphModel(g, e.Tau, recovery.GraphOptions{})
	if err != nil {
		return nil, err
	}
	// The operator's posterior on noiseless readings is a point mass at the
	// likelihood maximiser; a tiny σ keeps it numerically one.
	sigma := max(a.SensorSigma, 1e-9)
	solve := newSolver(model, sigma, 1, est)
	res := &AnswerResult{Trials: e.Trials, Nodes: g.N(), Communities: k, Tau: e.Tau, Calibration: cal,
		Seed: e.Seed, Estimator: est.Name(), perTrial: make([]float64, e.Trials), geometry: cg}
	type score struct {
		right, recovered, in90 bool
		p                      float64
		size                   int
	}
	scores := make([]score, e.Trials)
	var cache posteriorCache
	err = forTrials(ctx, e.Trials, workers(e.Workers, e.Trials), e.Progress, func(t int) error {
		rng := trialRNG(e.Seed, t)
		s := rng.IntN(g.N())
		f0 := make([]float64, g.N())
		f0[s] = 1
		y := make([]float64, g.N())
		act.Apply(y, f0, 1)
		for i := range y {
			y[i] += a.SensorSigma * rng.NormFloat64()
		}
		_, w, none, err := solve(y)
		if err != nil {
			return fmt.Errorf("graphcloak: trial %d: %w", t, err)
		}
		hat := s // no detection cannot happen with a point mass; keep the truth out of it anyway
		if !none {
			hat = argmaxInt(w)
		}
		probs := cal.AnswerProbabilities(cg.DistancesFrom(hat))
		truth := cg.Community(s)
		o := sampleIndex(probs, rng.Float64())
		post := cache.get(cal, cg, o)
		set := top90(post)
		scores[t] = score{recovered: cg.Community(hat) == truth, p: probs[truth], in90: slices.Contains(set, truth), size: len(set)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for t, sc := range scores {
		res.perTrial[t] = sc.p
		res.CommunityAccuracy += sc.p
		if sc.recovered {
			res.RecoveryRate++
		}
		if sc.in90 {
			res.In90Rate++
		}
		res.In90Size += float64(sc.size)
	}
	T := float64(e.Trials)
	res.CommunityAccuracy /= T
	res.RecoveryRate /= T
	res.In90Rate /= T
	res.In90Size /= T
	return res, nil
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

// top90 returns the smallest set of communities, most probable first,
// whose probabilities sum to at least 0.9.
func top90(p []float64) []int {
	idx := topK(p, len(p))
	total := 0.0
	for i, c := range idx {
		total += p[c]
		if total >= 0.9 {
			return idx[:i+1]
		}
	}
	return idx
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

package recovery

import (
	"fmt"
	"math"
	"slices"
)

// Posterior is the likelihood estimator over source locations. For one
// source of known mass μ (Problem.Mass, default 1) and a uniform prior,
//
//	log p(s | ỹ) = (μ·(Mᵀỹ)_s − ½μ²·‖M e_s‖²)/σ² + const,
//
// the exact posterior of the Gaussian model ỹ = μ·M e_s + N(0, σ²I),
// normalised with log-sum-exp. Mᵀỹ is one operator action; ‖M e_s‖² is
// exact on spectral models and a randomised estimate on operator models
// (Model.ColumnNorms2) — an approximation that only affects the estimate.
//
// For k = Problem.Sources > 1 sources it places k unit-mass sources
// greedily (each at the maximiser of the conditional log-likelihood given
// the ones already placed), then refines by iterated conditional modes
// (re-placing each source given the others until nothing changes). The
// reported Posterior is the average over the k sources of the exact
// conditional posterior of that source's location given the others, so
// summing it over a community gives the expected fraction of sources
// there under those conditionals. Sources = 0 is treated as 1.
//
// F is μ at each selected location (a point estimate: the MAP location for
// k = 1). Status is always Solved unless MinLogEvidence is set and the
// log-likelihood ratio of the best single source against "no source" is
// below it (then NoSource, with Posterior still filled in).
type Posterior struct {
	// MinLogEvidence is the log-likelihood-ratio threshold for reporting
	// NoSource. Default 0: never (the posterior is conditional on a
	// source being present).
	MinLogEvidence float64
	// Sweeps bounds the refinement sweeps for k > 1. Default 10.
	Sweeps int
	// Refine, when > 0 and the model's column norms are a randomised
	// estimate (large graphs), scores exactly — with ‖M e_s‖² computed,
	// not estimated — the Refine most likely single sources and the
	// Refine of largest correlation Mᵀỹ, and forms the posterior over
	// those candidates alone. It is for nearly noiseless readings (the
	// operator's own, for a private answer), where the likelihood is so
	// sharp that the estimate's error (≈ 25% with 32 probes), not the
	// data, would pick among neighbouring sources.
	Refine int
	// ExactNorms, when > 0 and the model's column norms are a randomised
	// estimate, computes them exactly for every node whose likelihood the
	// estimate's error could lift to within reach of the most likely
	// (exactLL), in at most ExactNorms block actions of 32 nodes; every
	// other node keeps its estimate. The error times 1/σ² is tens of nats
	// on nearly noiseless readings of a large graph, enough to rank the
	// wrong community first. One located release uses it (ForRelease); a
	// simulation's trials do not (a block action each).
	ExactNorms int
}

// Name returns "posterior".
func (Posterior) Name() string { return NamePosterior }

// Estimate computes the posterior; see the type documentation.
func (e Posterior) Estimate(p *Problem) (*Estimate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c0 := make([]float64, p.Model.n)
	p.Model.ApplyT(c0, p.Y)
	est := e.fromCorrelations(p, c0)
	est.Residual = residualNorm(p.Model, p.Y, est.F)
	est.Objective = est.Residual * est.Residual / (2 * p.Sigma * p.Sigma)
	e.screen(est, p.Model.n)
	return est, nil
}

// FromCorrelations is Estimate given c0 = Mᵀỹ, computed by the caller
// (a simulation applies M to a block of trials' readings at once), without
// the residual ‖ỹ − M·f̂‖ (NaN, as the objective): the posterior, the
// locations, F and the status are Estimate's. c0 must have one entry per
// location.
func (e Posterior) FromCorrelations(p *Problem, c0 []float64) (*Estimate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(c0) != p.Model.n {
		return nil, fmt.Errorf("%w: %d correlations for %d locations", ErrBadProblem, len(c0), p.Model.n)
	}
	est := e.fromCorrelations(p, c0)
	est.Residual, est.Objective = math.NaN(), math.NaN()
	e.screen(est, p.Model.n)
	return est, nil
}

// screen declares no source when the evidence is below MinLogEvidence.
func (e Posterior) screen(est *Estimate, n int) {
	if e.MinLogEvidence > 0 && est.LogEvidence < e.MinLogEvidence {
		est.Status = NoSource
		est.F = make([]float64, n)
		est.Locations = nil
	}
}

// fromCorrelations is the posterior from c0 = Mᵀỹ: F at the most likely
// locations, before the residual and the evidence screen.
func (e Posterior) fromCorrelations(p *Problem, c0 []float64) *Estimate {
	md := p.Model
	n := md.n
	mu := p.mass()
	s2 := p.Sigma * p.Sigma
	k := p.Sources
	if k < 1 {
		k = 1
	}
	norms, _ := md.ColumnNorms2()
	// Single-source log-likelihood ratios against "no source".
	ll := make([]float64, n)
	for s := 0; s < n; s++ {
		ll[s] = (mu*c0[s] - 0.5*mu*mu*norms[s]) / s2
	}
	if _, approx := md.ColumnNorms2(); approx && md.op != nil {
		switch {
		case e.Refine > 0:
			ll = refinedLL(md, ll, c0, e.Refine, mu, s2)
		case e.ExactNorms > 0:
			ll = exactLL(md, ll, c0, mu, s2, e.ExactNorms)
		}
	}
	evidence := maxOf(ll)
	est := &Estimate{
		DualBound: math.NaN(), Gap: math.NaN(), Eta: math.NaN(),
		LogEvidence: evidence, Status: Solved,
	}
	locs := []int{argmax(ll)}
	// gram[i] = Mᵀ M e_{locs[i]}, so Mᵀ(ỹ − μΣ M e_l) = c0 − μΣ gram.
	var grams [][]float64
	if k > 1 {
		grams = append(grams, md.gramColumn(locs[0]))
	}
	corr := make([]float64, n)
	condLL := func(skip int) []float64 { return conditionalLL(corr, c0, grams, skip, norms, mu, s2) }
	for len(locs) < k {
		l := condLL(-1)
		s := argmax(l)
		locs = append(locs, s)
		grams = append(grams, md.gramColumn(s))
	}
	sweeps := e.Sweeps
	if sweeps <= 0 {
		sweeps = 10
	}
	post := make([]float64, n)
	if k == 1 {
		copy(post, softmax(ll))
	} else {
		est.Iterations = coordinateSweeps(md, locs, grams, sweeps, condLL)
		for i := range locs {
			pr := softmax(condLL(i))
			for j := range post {
				post[j] += pr[j] / float64(k)
			}
		}
	}
	est.Posterior = post
	est.Locations = locs
	f := make([]float64, n)
	for _, s := range locs {
		f[s] += mu
	}
	est.F = f
	return est
}

// refinedLL rescores the candidates — the refine most likely by the
// estimated norms in ll and the refine largest correlations c0 = Mᵀỹ (on
// noiseless data the true source's is ‖M e_s‖², near the top whatever the
// norms' error) — with exact norms; every other node gets −∞, since an
// estimated norm that is low inflates a node's likelihood past any exactly
// scored one.
func refinedLL(md *Model, ll, c0 []float64, refine int, mu, s2 float64) []float64 {
	cand := TopK(ll, refine)
	for _, s := range TopK(c0, refine) {
		if !slices.Contains(cand, s) {
			cand = append(cand, s)
		}
	}
	refined := make([]float64, len(ll))
	for i := range refined {
		refined[i] = math.Inf(-1)
	}
	for _, s := range md.refineNorms(cand) {
		refined[s.node] = (mu*c0[s.node] - 0.5*mu*mu*s.norm2) / s2
	}
	return refined
}

// conditionalLL returns the single-source log-likelihood ratios given
// every located source but the skip-th: with corr = c0 − μΣ_{i≠skip}
// gram_i (corr is scratch of length n), (μ·corr_s − μ²‖M e_s‖²/2)/σ².
func conditionalLL(corr, c0 []float64, grams [][]float64, skip int, norms []float64, mu, s2 float64) []float64 {
	copy(corr, c0)
	for i, g := range grams {
		if i == skip {
			continue
		}
		for j := range corr {
			corr[j] -= mu * g[j]
		}
	}
	out := make([]float64, len(corr))
	for s := range out {
		out[s] = (mu*corr[s] - 0.5*mu*mu*norms[s]) / s2
	}
	return out
}

// coordinateSweeps moves each location in turn to the argmax of its
// conditional likelihood (updating grams), at most sweeps times or until a
// sweep changes nothing, and returns the number of sweeps run.
func coordinateSweeps(md *Model, locs []int, grams [][]float64, sweeps int, condLL func(skip int) []float64) int {
	iterations := 0
	for sw := 0; sw < sweeps; sw++ {
		changed := false
		for i := range locs {
			s := argmax(condLL(i))
			if s != locs[i] {
				locs[i] = s
				grams[i] = md.gramColumn(s)
				changed = true
			}
		}
		iterations = sw + 1
		if !changed {
			break
		}
	}
	return iterations
}

// OperatorRefine is Posterior.Refine for an operator's own recovery from
// its noiseless readings (a private answer): the candidates whose column
// norms are computed exactly.
const OperatorRefine = 16

// ForOperator returns est as an operator recovering from its own nearly
// noiseless readings should run it: the posterior refines its most likely
// sources with exact column norms (OperatorRefine); other estimators are
// returned as they are.
func ForOperator(est Estimator) Estimator {
	if p, ok := est.(Posterior); ok && p.Refine == 0 {
		p.Refine = OperatorRefine
		return p
	}
	return est
}

// releaseExactNorms is Posterior.ExactNorms for one located release:
// 8 block actions, about 24 CPU seconds on LFR 10⁵ (bench/missing).
const releaseExactNorms = 8

// ForRelease returns est as one located release should run it: the
// posterior with exact column norms where they matter
// (releaseExactNorms); other estimators, and a posterior that already
// refines, are returned as they are.
func ForRelease(est Estimator) Estimator {
	if p, ok := est.(Posterior); ok && p.Refine == 0 && p.ExactNorms == 0 {
		p.ExactNorms = releaseExactNorms
		return p
	}
	return est
}

// exactNorm is a node's exact squared column norm ‖M e_s‖².
type exactNorm struct {
	node  int
	norm2 float64
}

// refineNorms computes ‖M e_s‖² exactly for nodes (one block action;
// on a restricted model, Σ_{i∈S} A_is²).
func (md *Model) refineNorms(nodes []int) []exactNorm {
	n, b := md.n, len(nodes)
	x, y := make([]float64, n*b), make([]float64, n*b)
	for c, s := range nodes {
		x[s*b+c] = 1
	}
	md.op.Apply(y, x, b)
	rows := md.sel // a restricted model's norms sum over its rows only
	if rows == nil {
		rows = make([]int, n)
		for i := range rows {
			rows[i] = i
		}
	}
	out := make([]exactNorm, b)
	for c, s := range nodes {
		t := 0.0
		for _, i := range rows {
			v := y[i*b+c]
			t += v * v
		}
		out[c] = exactNorm{s, t}
	}
	return out
}

// Top90 returns the smallest set of indices of p, most probable first,
// whose probabilities sum to at least 0.9 (all of them when they never
// do): the analyst's 90 % set of communities.
func Top90(p []float64) []int {
	idx := TopK(p, len(p))
	total := 0.0
	for i, c := range idx {
		total += p[c]
		if total >= 0.9 {
			return idx[:i+1]
		}
	}
	return idx
}

// TopK returns the indices of the k largest entries of x, largest first
// (ties by smaller index).
func TopK(x []float64, k int) []int {
	if k < 0 {
		k = 0
	}
	if top, ok := topKSelect(x, k); ok {
		return top
	}
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] > x[b]:
			return -1
		case x[a] < x[b]:
			return 1
		}
		return 0
	})
	return idx[:min(k, len(idx))]
}

// topKSelect is TopK for a k small against len(x) in one pass (a forecast
// asks for one source among 10⁴ nodes each trial): top holds the k largest
// seen so far in TopK's order, value descending and, among equal values,
// index ascending, so it returns what the stable sort does. It declines
// (false) a k that is not small, and x holding a NaN (which the sort's
// comparison leaves in an order of its own).
func topKSelect(x []float64, k int) ([]int, bool) {
	if k > 16 || 8*k > len(x) {
		return nil, false
	}
	top := make([]int, 0, k+1)
	for i, v := range x {
		if v != v {
			return nil, false
		}
		if len(top) == k && (k == 0 || !(v > x[top[k-1]])) {
			continue
		}
		// After every kept value ≥ v: an equal value kept earlier has the
		// lower index and stays ahead.
		at := len(top)
		for at > 0 && x[top[at-1]] < v {
			at--
		}
		top = slices.Insert(top, at, i)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top, true
}

// gramColumn returns Mᵀ M e_s.
func (md *Model) gramColumn(s int) []float64 {
	n := md.n
	out := make([]float64, n)
	if md.Spectral() {
		r := md.r
		z := make([]float64, r)
		row := md.v[s*r : s*r+r]
		for k := range z {
			z[k] = md.s[k] * md.s[k] * row[k]
		}
		md.expandV(out, z)
		return out
	}
	es := make([]float64, n)
	es[s] = 1
	tmp := make([]float64, md.m)
	md.Apply(tmp, es)
	md.ApplyT(out, tmp)
	return out
}

// residualNorm is ‖Mf − y‖₂.
func residualNorm(md *Model, y, f []float64) float64 {
	mf := make([]float64, md.m)
	md.Apply(mf, f)
	t := 0.0
	for i := range mf {
		d := mf[i] - y[i]
		t += d * d
	}
	return math.Sqrt(t)
}

func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func maxOf(x []float64) float64 { return x[argmax(x)] }

// softmax returns exp(x − logsumexp(x)).
func softmax(x []float64) []float64 {
	mx := maxOf(x)
	out := make([]float64, len(x))
	sum := 0.0
	for i, v := range x {
		out[i] = math.Exp(v - mx)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

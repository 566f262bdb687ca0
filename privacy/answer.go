package privacy

import (
	"context"
	"fmt"
	"github.com/graphcloak/graphcloak/laplacian"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// A private community answer releases only which community holds the
// source, never per-node values. The operator recovers the source node s
// from its own (noiseless) readings and publishes a community o drawn from
//
//	P(o | s) = exp(−ε′·min(D(s, o), c)) / Z(s),   Z(s) = Σ_o exp(−ε′·min(D(s, o), c)),
//
// D the hop distance from s to community o (CommunityGeometry) and c the
// distance cap. For adjacent s ~ t the log-ratio of the two output
// distributions is at most ε′ + |ln Z(s) − ln Z(t)| (min(D, c) is
// 1-Lipschitz along edges), and often less; CalibrateAnswer picks the
// largest ε′ whose worst case over all edges, computed exactly, is at most
// ε/⌈α⌉, so moving
// the source α hops is ε-indistinguishable (group privacy). The cap c = 1 is
// randomized response over the k communities: Z is the same for every s,
// ε′ = ε, P(right) = e^ε/(e^ε + k − 1), and the guarantee holds between any
// two inputs, not only neighbouring ones. Larger caps let nearby
// communities share the doubt, which is what makes answers useful on
// graphs with many communities (derivation: docs/derivations.md §4).

// AnswerScaleBits fixes the grid of ε′: ε′ = ScaleNum / 2^AnswerScaleBits,
// so the sampler draws exactly the distribution that was verified.
const AnswerScaleBits = 20

// Answer mechanism names.
const (
	AnswerRandomizedResponse = "randomized-response"
	AnswerGeometric          = "community-geometric"
)

// AnswerCalibration is a calibrated community-answer mechanism.
type AnswerCalibration struct {
	Mechanism string  `json:"mechanism"` // AnswerRandomizedResponse (Cap 1), AnswerGeometric or AnswerEnvelope
	Epsilon   float64 `json:"epsilon"`   // the guarantee for a move of the source by Alpha hops
	Alpha     float64 `json:"alpha"`
	// Cap is the distance cap c = CapQuarters/4 (quarter steps keep the
	// sampler's arithmetic exact).
	Cap         float64 `json:"cap,omitempty"`
	CapQuarters int     `json:"capQuarters,omitempty"`
	// Scale is ε′ = ScaleNum / 2^AnswerScaleBits.
	Scale    float64 `json:"scale"`
	ScaleNum uint64  `json:"scaleNum"`
	// Loss is the worst privacy loss over all edges, computed exactly for
	// this ε′ (≤ Epsilon/⌈Alpha⌉).
	Loss float64 `json:"loss"`
	// Rho is the zCDP cost PureRho(ε) charged to the ledger beside ε
	// (Charge).
	Rho float64 `json:"rho"`
	// Accuracy is the mean over nodes s of P(comm(s) | s): the rate of the
	// right community when the operator's recovery is exact.
	Accuracy float64   `json:"accuracy"`
	K        int       `json:"communityCount"`
	envelope *envelope // the community-envelope mechanism's weights, when it is the one
}

// CalibrateAnswer calibrates the answer mechanism on cg for a guarantee ε
// against moves of the source by α hops. capDist 0 chooses the cap in
// 1..MaxAnswerCap with the highest expected accuracy (the choice depends on
// the public graph and partition only); 1 is randomized response.
func CalibrateAnswer(ctx context.Context, cg *CommunityGeometry, epsilon, alpha float64, capDist int) (AnswerCalibration, error) {
	if err := checkEpsilon("CalibrateAnswer", epsilon); err != nil {
		return AnswerCalibration{}, err
	}
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || alpha <= 0 {
		return AnswerCalibration{}, &ArgumentError{Func: "CalibrateAnswer", Param: "alpha", Value: alpha, Reason: "must be finite and > 0"}
	}
	if capDist < 0 || capDist > MaxAnswerCap {
		return AnswerCalibration{}, &ArgumentError{Func: "CalibrateAnswer", Param: "cap", Value: capDist,
			Reason: fmt.Sprintf("must be in 0..%d (0: choose)", MaxAnswerCap)}
	}
	key := calibrationKey{epsilon, alpha, capDist}
	if cal, ok := cg.cached(key); ok {
		return cal, nil
	}
	cal, err := cg.calibrate(ctx, epsilon, alpha, capDist)
	if err == nil {
		cg.remember(key, cal)
	}
	return cal, err
}

// calibrationKey names one calibration of a geometry: it depends on
// nothing else (the graph and the partition are the geometry's).
type calibrationKey struct {
	epsilon, alpha float64
	capDist        int
}

func (cg *CommunityGeometry) cached(key calibrationKey) (AnswerCalibration, bool) {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	cal, ok := cg.calibrations[key]
	return cal, ok
}

func (cg *CommunityGeometry) remember(key calibrationKey, cal AnswerCalibration) {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.calibrations == nil {
		cg.calibrations = map[calibrationKey]AnswerCalibration{}
	}
	cg.calibrations[key] = cal
}

// calibrate is CalibrateAnswer without the cache.
func (cg *CommunityGeometry) calibrate(ctx context.Context, epsilon, alpha float64, capDist int) (AnswerCalibration, error) {
	perHop := epsilon / math.Ceil(alpha)
	caps := []int{4 * capDist} // in quarters
	if capDist == 0 {
		// Quarter steps up to 3, whole hops beyond.
		caps = caps[:0]
		top := 4 * min(MaxAnswerCap, cg.maxDistance()+1)
		for q := 4; q <= top; q++ {
			if q <= 12 || q%4 == 0 {
				caps = append(caps, q)
			}
		}
	}
	var best AnswerCalibration
	for _, c := range caps {
		if err := ctx.Err(); err != nil {
			return AnswerCalibration{}, err
		}
		cal := cg.calibrateCap(perHop, c)
		if c == caps[0] || cal.Accuracy > best.Accuracy {
			best = cal
		}
	}
	best.Mechanism = AnswerGeometric
	if best.CapQuarters == 4 {
		best.Mechanism = AnswerRandomizedResponse
	}
	if capDist == 0 {
		env, err := cg.calibrateEnvelope(ctx, perHop)
		if err != nil {
			return AnswerCalibration{}, err
		}
		if env.envelope != nil && env.Loss <= perHop && env.Accuracy > best.Accuracy {
			best = env
		}
	}
	best.Epsilon, best.Alpha, best.K = epsilon, alpha, cg.k
	best.Rho = PureRho(epsilon)
	return best, nil
}

// spreadEntries is the work of one spread of every community of part
// over its connected component of g: Σ over communities of n_C + 2|E_C|
// (k·(n + 2|E|) on a connected graph), and the k communities.
func spreadEntries(g *laplacian.Graph, part []int) (entries float64, k int) {
	_, label := g.Components()
	rowPtr, _, _ := g.CSR()
	size := map[int32]float64{} // a component's n_C + 2|E_C|
	for v := range g.N() {
		size[label[v]] += float64(1 + rowPtr[v+1] - rowPtr[v])
	}
	seen := map[int]bool{}
	for v, c := range part {
		if !seen[c] {
			seen[c] = true
			entries += size[label[v]]
		}
	}
	return entries, len(seen)
}

// AuditSeconds models answer.Model.Audit — one calibration checked over
// every edge — on g with the partition part: seconds on the 2-core
// reference machine. Its work: the community spreads that give every
// node's probabilities and the answers' posteriors (the envelope's: two
// spreads of every community over its component), every node's
// log-probability of every answer (n·k), and every edge's comparison of
// its ends' k answers (|E|·k), each at its rate (auditNanosPer…).
func AuditSeconds(g *laplacian.Graph, part []int) float64 {
	entries, k := spreadEntries(g, part)
	n, e := float64(g.N()), float64(g.NumEdges())
	return (2*entries*auditNanosPerEntry + n*float64(k)*auditNanosPerCell + e*float64(k)*auditNanosPerPair) * 1e-9
}

// The audit's rates, fitted as the calibration's: e-mail Enron 7.2 CPU-s
// an ε (its table of every node's probabilities over its bound: the audit
// one answer at a time), LFR 2·10⁴ about 2.
const (
	auditNanosPerEntry = 10
	auditNanosPerCell  = 20
	auditNanosPerPair  = 4
)

// Charge is the ledger charge of one answer with this calibration: its
// zCDP cost Rho and, since the answer is ε-DP, its ε.
func (c AnswerCalibration) Charge(scope, releaseID string) Charge {
	return Charge{Scope: scope, ReleaseID: releaseID, Rho: c.Rho, Epsilon: c.Epsilon}
}

// maxDistance returns the largest truncated distance any node has to any
// community.
func (cg *CommunityGeometry) maxDistance() int {
	w := MaxAnswerCap + 1
	m := 0
	for i, h := range cg.hist {
		if h > 0 && i%w > m {
			m = i % w
		}
	}
	return m
}

// calibrateCap finds, for the cap q/4, the largest ε′ on the
// 2^−AnswerScaleBits grid in [perHop/2, perHop] whose exact worst-case loss
// is ≤ perHop (bisection; the lower end is feasible because each ratio
// Z(s)/Z(t) is within e^{±ε′}).
func (cg *CommunityGeometry) calibrateCap(perHop float64, q int) AnswerCalibration {
	c := float64(q) / 4
	const one = 1 << AnswerScaleBits
	lo := uint64(math.Floor(perHop/2*one)) - 1
	if lo == 0 || lo > math.MaxUint64/2 {
		lo = 1
	}
	hi := uint64(math.Floor(perHop * one))
	feasible := func(num uint64) (float64, bool) {
		loss := cg.loss(float64(num)/one, c)
		return loss, loss <= perHop
	}
	bestLoss, ok := feasible(hi)
	if ok {
		lo = hi
	} else {
		bestLoss, _ = feasible(lo)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if l, ok := feasible(mid); ok {
				lo, bestLoss = mid, l
			} else {
				hi = mid
			}
		}
	}
	scale := float64(lo) / one
	return AnswerCalibration{Cap: c, CapQuarters: q, Scale: scale, ScaleNum: lo, Loss: bestLoss, Accuracy: cg.meanAccuracy(scale, c)}
}

// logZ returns ln Z(s) for every node at scale ε′ and cap c.
func (cg *CommunityGeometry) logZ(scale float64, c float64) []float64 {
	n := cg.g.N()
	weights := make([]float64, MaxAnswerCap+1)
	for d := range weights {
		weights[d] = math.Exp(-scale * min(float64(d), c))
	}
	out := make([]float64, n)
	for s := 0; s < n; s++ {
		z := 0.0
		for d, h := range cg.Histogram(s) {
			z += float64(h) * weights[d]
		}
		out[s] = math.Log(z)
	}
	return out
}

// loss returns the worst log-ratio of P(o | s) and P(o | t) over adjacent
// nodes and outputs o, exactly (+ a rounding allowance): along s → t,
//
//	max_o ln P(o|s)/P(o|t) = ε′·[some o gets farther: away(s→t) < c] + ln Z(t) − ln Z(s),
//
// because min(D(t,o), c) − min(D(s,o), c) = clamp(c − D(s,o), 0, 1) when
// D(t,o) = D(s,o) + 1 and ≤ 0 otherwise.
func (cg *CommunityGeometry) loss(scale float64, c float64) float64 {
	if workCount != nil {
		workCount.loss.Add(int64(2*cg.g.NumEdges() + cg.g.N()*(MaxAnswerCap+1)))
	}
	lz := cg.logZ(scale, c)
	worst := math.Inf(-1)
	rowPtr, col, _ := cg.g.CSR()
	for s := range lz {
		for e := rowPtr[s]; e < rowPtr[s+1]; e++ {
			// Moving away from o at distance a costs clamp(c − a, 0, 1)·ε′;
			// the nearest such o (away) costs the most.
			l := lz[col[e]] - lz[s] + scale*math.Max(0, math.Min(1, c-float64(cg.away[e])))
			worst = max(worst, l)
		}
	}
	if math.IsInf(worst, -1) { // no edges: nothing to protect against
		worst = 0
	}
	// Each ln Z carries a relative error of a few ulps over ≤ 17 terms.
	const rounding = 64 * 0x1p-52
	return worst + rounding*(1+math.Abs(scale)*c)
}

// meanAccuracy is the mean over nodes of P(comm(s) | s) = 1/Z(s).
func (cg *CommunityGeometry) meanAccuracy(scale float64, c float64) float64 {
	lz := cg.logZ(scale, c)
	acc := 0.0
	for _, l := range lz {
		acc += math.Exp(-l)
	}
	return acc / float64(len(lz))
}

// AnswerProbabilities returns P(o | s) for every community o, given the
// distances D(s, ·) (CommunityGeometry.DistancesFrom).
func (cal AnswerCalibration) AnswerProbabilities(dist []int) []float64 {
	p := make([]float64, len(dist))
	z := 0.0
	for o, d := range dist {
		p[o] = math.Exp(-cal.Scale * min(float64(d), cal.Cap))
		z += p[o]
	}
	for o := range p {
		p[o] /= z
	}
	return p
}

// ProbabilitiesAt returns P(o | s) for every community o and the recovered
// source s, whichever the mechanism.
func (cal AnswerCalibration) ProbabilitiesAt(cg *CommunityGeometry, s int) []float64 {
	if cal.envelope != nil {
		return cal.envelope.probabilities(s)
	}
	return cal.AnswerProbabilities(cg.DistancesFrom(s))
}

// ProbabilitiesEverywhere returns ProbabilitiesAt(cg, s) for every node s
// of cg, the same numbers, on up to workers goroutines: for the
// community-envelope mechanism by one search per community (k searches
// over the graph, where a search per node costs n); otherwise from the
// geometry's distance table (distanceTable: its k searches made once for
// every calibration), node by node beyond its bound.
func (cal AnswerCalibration) ProbabilitiesEverywhere(ctx context.Context, cg *CommunityGeometry, workers int) ([][]float64, error) {
	if cal.envelope != nil {
		if p, ok, err := cal.envelope.allProbabilities(ctx, max(1, workers)); ok {
			return p, err
		}
	}
	table, err := cg.distanceTable(ctx)
	if err != nil {
		return nil, err
	}
	at := func(s int) []float64 { return cal.ProbabilitiesAt(cg, s) }
	if table != nil && cal.envelope == nil {
		at = func(s int) []float64 { return cal.AnswerProbabilities(cg.distancesIn(table, s)) }
	}
	p := make([][]float64, cg.N())
	workers = max(1, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for s := w; s < len(p); s += workers {
				if s%256 == w && ctx.Err() != nil {
					return
				}
				p[s] = at(s)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// AnswerPosterior returns the analyst's posterior over communities given
// the published answer o, for a source uniformly distributed over the
// nodes: P(c | o) ∝ Σ_{s ∈ c} P(o | s). It uses public facts only.
func (cal AnswerCalibration) AnswerPosterior(cg *CommunityGeometry, o int) []float64 {
	if cal.envelope != nil {
		return cal.envelope.posterior(o)
	}
	lz := cg.logZ(cal.Scale, cal.Cap)
	dist := cg.DistancesTo(o)
	post := make([]float64, cg.k)
	total := 0.0
	for s, d := range dist {
		w := math.Exp(-cal.Scale*min(float64(d), cal.Cap) - lz[s])
		post[cg.part[s]] += w
		total += w
	}
	for c := range post {
		post[c] /= total
	}
	return post
}

// AnswerPosteriors returns AnswerPosterior(cg, o) for every answer o,
// the same numbers: Z and the distances (the geometry's distance table)
// read once for all of them, not once per answer; the envelope's spreads
// on every core, each worker's sweep state made once.
func (cal AnswerCalibration) AnswerPosteriors(ctx context.Context, cg *CommunityGeometry) ([][]float64, error) {
	post := make([][]float64, cg.k)
	if env := cal.envelope; env != nil {
		workers := max(1, min(runtime.GOMAXPROCS(0), cg.k))
		err := env.forCommunities(ctx, workers, func(_ int, sw *envelopeSweep, o int) { post[o] = env.posteriorOf(sw, o) })
		return post, err
	}
	table, err := cg.distanceTable(ctx)
	if err != nil {
		return nil, err
	}
	if table == nil {
		for o := range post {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			post[o] = cal.AnswerPosterior(cg, o)
		}
		return post, nil
	}
	lz := cg.logZ(cal.Scale, cal.Cap)
	total := make([]float64, cg.k)
	for o := range post {
		post[o] = make([]float64, cg.k)
	}
	for s, c := range cg.part {
		for o, d := range table[s*cg.k : (s+1)*cg.k] {
			w := math.Exp(-cal.Scale*min(float64(d), cal.Cap) - lz[s])
			post[o][c] += w
			total[o] += w
		}
	}
	for o, p := range post {
		for c := range p {
			p[c] /= total[o]
		}
	}
	return post, nil
}

// AnswerRequest is one private community answer.
type AnswerRequest struct {
	Calibration AnswerCalibration
	// Distances are D(s, ·) for the recovered source s
	// (CommunityGeometry.DistancesFrom); the community-envelope mechanism
	// reads Source instead.
	Distances []int
	Source    int
	// Noise is the randomness: the zero value is crypto/rand; a keyed
	// source derives the draw from the key, the release id and the scope.
	Noise     NoiseSource
	ReleaseID string
	Scope     string
	Epoch     string
}

// SampleAnswer draws the published community: a uniform proposal o,
// accepted with probability exp(−ε′·min(D(s, o), c)) by the exact
// Bernoulli-exp sampler of Canonne, Kamath & Steinke (2020), so the output
// follows AnswerProbabilities exactly (no floating-point sampling).
// It charges nothing: the caller charges Calibration.Charge first.
func SampleAnswer(req AnswerRequest) (int, error) {
	if req.Calibration.envelope != nil {
		return sampleEnvelope(req)
	}
	k := len(req.Distances)
	if k == 0 {
		return 0, &ArgumentError{Func: "SampleAnswer", Param: "distances", Reason: "must list at least one community"}
	}
	cal := req.Calibration
	if cal.CapQuarters < 4 {
		return 0, &ArgumentError{Func: "SampleAnswer", Param: "calibration", Reason: "is not calibrated (cap 0)"}
	}
	src, err := req.source()
	if err != nil {
		return 0, err
	}
	den := keyednoise.U128{Lo: 1 << (AnswerScaleBits + 2)} // ε′·min(D, q/4) = ScaleNum·min(4D, q) / 2^(bits+2)
	for {
		o := int(keyednoise.Uniform64(src, uint64(k)))
		d := uint64(min(4*req.Distances[o], cal.CapQuarters))
		hi, lo := bits.Mul64(cal.ScaleNum, d)
		if keyednoise.BernExp128(src, keyednoise.U128{Hi: hi, Lo: lo}, den) {
			return o, nil
		}
	}
}

// source returns the answer's bit source.
func (req AnswerRequest) source() (bitSource, error) {
	n := req.Noise
	if n.key == nil {
		if n.src != nil {
			return n.src, nil
		}
		return newCryptoSource(), nil
	}
	if err := checkReleaseID("SampleAnswer", req.ReleaseID); err != nil {
		return nil, err
	}
	// Answers keep the version 2 derivation (the master key as IKM): an
	// answer has no sensor, and its stream must not change with releases'.
	d, err := keyednoise.NewDeriver((*[KeySize]byte)(n.key), keyednoise.Params{Version: keyednoise.Version2,
		ReleaseID: req.ReleaseID, Scope: req.Scope, Epoch: req.Epoch,
		GridVariance: req.Calibration.ScaleNum, GridExponent: req.Calibration.CapQuarters})
	if err != nil {
		return nil, err
	}
	var s keyednoise.Stream
	s.Reset(d.Derive("community-answer", 0))
	return &s, nil
}

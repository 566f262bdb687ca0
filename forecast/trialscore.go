package forecast

import (
	"math"
	"slices"
	"sync"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/recovery"
)

// A poolScorer scores a pool's trial as graphTrials.run does — the
// posterior of one source from the block's correlations, its ranking of
// the communities, the scores and locate's verdict mass — in three passes
// over the nodes with no vector allocated a trial: ỹ and c0 = m·ca + σ·cz
// are formed as they are read, and the posterior's exponentials serve its
// communities' sums, the top node and the ranking at once. Every number is
// computed by the same expressions in the same order as the general path
// (recovery.Posterior, community.RankCommunities, recovery.TopK,
// verdictTests.verdictMass), so a trial's score is the same to the bit
// (TestPoolScorerMatchesRun). A plan's step "forecasts by source mass"
// scores tens of thousands of trials; at 2·10⁴ nodes the general path
// spent 1.7 ms a trial in ten passes and eight allocations of n floats.
//
// It serves only what the general path would compute the same way: one
// source a trial, the plain posterior, a block with correlations, no EMD;
// a trial whose numbers are not all finite is left to the general path
// (which refuses or ranks it as it always did).
type poolScorer struct {
	part    []int // canonical community ids
	size    []int // nodes by community
	n       int
	scratch sync.Pool // *scoreScratch
}

// scoreScratch is one worker's vectors.
type scoreScratch struct {
	ll, e        []float64 // log-likelihoods, their exponentials
	sums, shares []float64 // by community
	order        []int     // communities, ranked
	top, acc     []float64 // the evidence test's, by its communities
	cand         []bool
}

// newPoolScorer is the scorer of tr's trials, or nil when the general
// path must score them.
func newPoolScorer(tr *graphTrials, est recovery.Estimator) *poolScorer {
	e := tr.e
	if e.Pool == nil || !e.noEMD || e.Sources != 1 {
		return nil
	}
	if p, ok := est.(recovery.Posterior); !ok || p != (recovery.Posterior{}) {
		return nil
	}
	return &poolScorer{part: tr.part, size: memberCounts(tr.part), n: e.Graph.N()}
}

// memberCounts are the nodes of each community of a partition into ids
// 0 … k−1.
func memberCounts(part []int) []int {
	k := 0
	for _, c := range part {
		k = max(k, c+1)
	}
	size := make([]int, k)
	for _, c := range part {
		size[c]++
	}
	return size
}

// score is trial t's score at mass m (the pool's trial t, its block's
// correlations) with noise σ, and ok; not ok when the general path must
// score it.
func (ps *poolScorer) score(tr *graphTrials, t int, m float64) (graphScore, bool) {
	bl := tr.e.Pool.block(t / trialBlock)
	k := t % trialBlock
	if bl.err != nil || !bl.correlated {
		return graphScore{}, false
	}
	md := tr.model
	if bl.model != nil {
		md = bl.model
	}
	sc := ps.scratch.Get()
	if sc == nil {
		sc = ps.newScratch()
	}
	defer ps.scratch.Put(sc)
	return ps.scoreBlock(sc.(*scoreScratch), tr, md, bl, k, m)
}

func (ps *poolScorer) newScratch() *scoreScratch {
	k := len(ps.size)
	return &scoreScratch{ll: make([]float64, ps.n), e: make([]float64, ps.n), sums: make([]float64, k),
		shares: make([]float64, k), order: make([]int, k)}
}

// scoreBlock scores block bl's k-th trial at mass m on model md.
func (ps *poolScorer) scoreBlock(sc *scoreScratch, tr *graphTrials, md *recovery.Model, bl *poolBlock, k int, m float64) (graphScore, bool) {
	sigma := tr.sigma
	a, z, ca, cz := bl.a[k], bl.z[k], bl.ca[k], bl.cz[k]
	// ỹ's sum (the mass estimate's; finite exactly when every reading is,
	// Problem.Validate's check, or it overflowed: the general path then).
	sumY, nY := 0.0, len(a)
	if bl.rows == nil {
		for i := range a {
			sumY += m*a[i] + sigma*z[i]
		}
	} else {
		for _, i := range bl.rows {
			sumY += m*a[i] + sigma*z[i]
		}
		nY = len(bl.rows)
	}
	if sumY-sumY != 0 {
		return graphScore{}, false
	}
	ll, mx, ok := logLikelihoods(sc.ll, md, ca, cz, m, sigma)
	if !ok {
		return graphScore{}, false
	}
	src := bl.src[k][0]
	out := graphScore{srcComm: ps.part[src], named: -1, emd: math.NaN()}
	heavy, ok := ps.rank(sc, ll, mx)
	if !ok {
		return graphScore{}, false
	}
	ps.scoreRanking(&out, sc, tr.e.Graph.N())
	if heavy == src {
		out.exact = 1
	}
	if v := tr.e.verdicts; v != nil {
		matched := func(root []float64, cut float64) float64 { // massBound.stat of c0
			if bl.matchedBelow(k, root, m, sigma, cut) {
				return math.Inf(-1)
			}
			best := math.Inf(-1)
			for s, r := range root {
				if r > 0 {
					best = max(best, (m*ca[s]+sigma*cz[s])/r)
				}
			}
			return best
		}
		out.verdictMass = v.poolVerdictMass(sc, md, sigma, sumY, nY, matched, ll, mx)
	}
	return out, true
}

// logLikelihoods fills ll with the posterior's single-source
// log-likelihood ratios ℓ_s = (μ·c0_s − ½μ²‖M e_s‖²)/σ², μ = 1 (recovery's
// Posterior on a Problem of no stated mass), c0 = m·ca + σ·cz, and returns
// their largest; not ok when one is not finite.
func logLikelihoods(ll []float64, md *recovery.Model, ca, cz []float64, m, sigma float64) ([]float64, float64, bool) {
	norms, _ := md.ColumnNorms2()
	mu, s2 := 1.0, sigma*sigma
	bad, mx := false, math.Inf(-1)
	for s := range ll {
		c0 := m*ca[s] + sigma*cz[s]
		l := (mu*c0 - 0.5*mu*mu*norms[s]) / s2
		ll[s] = l
		bad = bad || l-l != 0
		if l > mx {
			mx = l
		}
	}
	return ll, mx, !bad
}

// rank fills sc.shares (each community's share of the posterior
// softmax(ℓ), as community.RankCommunities computes it) and sc.order (the
// communities ranked), and returns the most likely node (recovery.TopK's
// first); not ok when the posterior has no mass. mx is max ℓ.
func (ps *poolScorer) rank(sc *scoreScratch, ll []float64, mx float64) (heavy int, ok bool) {
	// exp(ℓ − mx); an exponent below −746 is 0 (math.Exp underflows
	// there), not computed.
	e := sc.e
	sum := 0.0
	for s, l := range ll {
		v := 0.0
		if d := l - mx; d >= -746 {
			v = math.Exp(d)
		}
		e[s] = v
		sum += v
	}
	clear(sc.sums)
	total, best := 0.0, -1.0
	heavy = -1
	for s, v := range e {
		if v == 0 {
			continue
		}
		w := v / sum
		if w > best {
			best, heavy = w, s
		}
		if w > 0 {
			total += w
			sc.sums[ps.part[s]] += w
		}
	}
	if !(total > 0) || total-total != 0 || heavy < 0 {
		return 0, false
	}
	for c, s := range sc.sums {
		sc.shares[c] = s / total
		sc.order[c] = c
	}
	// RankCommunities' stable sort by share, descending: ties by id.
	slices.SortFunc(sc.order, func(a, b int) int {
		switch sa, sb := sc.shares[a], sc.shares[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return a - b
	})
	return heavy, true
}

// scoreRanking sets out's scores from the ranking (graphTrials.run's, one
// source): the named community, whether it is the source's, the source
// community's share, its place in the 90% set and the posterior rule's
// flag, n the graph's nodes.
func (ps *poolScorer) scoreRanking(out *graphScore, sc *scoreScratch, n int) {
	top := sc.order[0]
	out.named = top
	if top == out.srcComm {
		out.comm = 1
	}
	out.share = sc.shares[out.srcComm]
	prior := float64(ps.size[top]) / float64(n)
	out.flagged = sc.shares[top]/(float64(ps.size[top])/float64(n)) < community.NoiseThreshold(prior)
	total := 0.0
	out.size90 = len(sc.order)
	for i, c := range sc.order {
		total += sc.shares[c]
		out.in90 = out.in90 || c == out.srcComm
		if total >= 0.9 {
			out.size90 = i + 1
			break
		}
	}
}

// poolVerdictMass is verdictTests.verdictMass of a trial whose readings on
// nY sensors sum to sumY, whose correlations' matched statistic is
// matched's and whose log-likelihood ratios are ll (the evidence test's,
// μ = 1; mx their largest).
func (v *verdictTests) poolVerdictMass(sc *scoreScratch, md *recovery.Model, sigma, sumY float64, nY int, matched func(root []float64, cut float64) float64, ll []float64, mx float64) float64 {
	mass, null := v.tests(md, sigma)
	low := mass.fromSum(sumY, nY, sigma, matched).Low
	if low == 0 || !v.evidenceIn(sc, ll, mx, null) {
		return 0
	}
	return low
}

// evidenceIn is the evidence test's verdict (a source: true) on readings
// of log-likelihood ratios ll (mx their largest) against its sorted null:
// recovery.PValueOf(T, null) ≤ NoiseLevel for T = max_c T_c, T_c =
// top_c + log(acc_c/|c|), top_c = max_{s∈c} ℓ_s and acc_c = Σ_{s∈c}
// e^{ℓ_s − top_c} (recovery.EvidenceTest's statistic, computed as it
// does). It answers T > crit, crit the null draw the p-value turns at,
// and T_c is bracketed without an exponential: 1 ≤ acc_c ≤ |c| gives
// top_c − log|c| ≤ T_c ≤ top_c. A community whose upper end is below crit
// cannot decide; one whose lower end is above decides; only the others'
// T_c are computed (every community's at small masses, none at large
// ones). The margin δ covers the rounding of the bounds many times over.
func (v *verdictTests) evidenceIn(sc *scoreScratch, ll []float64, mx float64, null []float64) bool {
	k := len(v.size)
	if k == 0 { // no partition: T = max ℓ
		return !(recovery.PValueOf(mx, null) > recovery.NoiseLevel)
	}
	crit, ok := turningDraw(null)
	if !ok {
		return false
	}
	if len(sc.top) != k {
		sc.top, sc.acc, sc.cand = make([]float64, k), make([]float64, k), make([]bool, k)
	}
	top, acc, cand := sc.top, sc.acc, sc.cand
	for c := range top {
		top[c], acc[c] = math.Inf(-1), 0
	}
	for s, l := range ll {
		top[v.part[s]] = max(top[v.part[s]], l)
	}
	some := false
	for c, t := range top {
		delta := 1e-9 * (1 + math.Abs(crit) + math.Abs(t))
		if t-v.logSize[c] > crit+delta {
			return true
		}
		cand[c] = t+delta >= crit
		some = some || cand[c]
	}
	if !some {
		return false
	}
	for s, l := range ll {
		if c := v.part[s]; cand[c] {
			if d := l - top[c]; d >= -746 {
				acc[c] += math.Exp(d)
			}
		}
	}
	best := math.Inf(-1)
	for c, ok := range cand {
		if ok {
			best = max(best, top[c]+math.Log(acc[c]/v.size[c]))
		}
	}
	return !(recovery.PValueOf(best, null) > recovery.NoiseLevel)
}

// turningDraw is the null draw crit at which the evidence test turns: a
// statistic T has p-value ≤ recovery.NoiseLevel exactly when T > crit
// (PValueOf counts the draws below T); not ok when no T does.
func turningDraw(null []float64) (crit float64, ok bool) {
	L := len(null)
	for i := 1; i <= L; i++ {
		if float64(1+L-i)/float64(1+L) <= recovery.NoiseLevel {
			return null[i-1], true
		}
	}
	return 0, false
}

// blockMaxima are, by trial of a block, the largest ca_s/root_s and
// cz_s/root_s over the nodes of root_s > 0 and of their magnitudes.
type blockMaxima struct {
	once                 sync.Once
	ca, caAbs, cz, czAbs []float64
}

// matchedBelow reports whether the matched statistic max_s c0_s/root_s of
// trial k's correlations c0 = m·ca + σ·cz (m ≥ 0) is proven below cut —
// at noise it mostly is, and the n divisions are not made: it is at most
// m·max(ca/root) + σ·max(cz/root), each maximum taken once a block, and
// the margin covers the rounding of every term many times over. root is
// the block's model's (one per model: the same for every caller).
func (bl *poolBlock) matchedBelow(k int, root []float64, m, sigma, cut float64) bool {
	mx := &bl.maxima
	mx.once.Do(func() {
		b := len(bl.ca)
		mx.ca, mx.caAbs, mx.cz, mx.czAbs = make([]float64, b), make([]float64, b), make([]float64, b), make([]float64, b)
		for j := range b {
			mx.ca[j], mx.caAbs[j] = columnMaxima(bl.ca[j], root)
			mx.cz[j], mx.czAbs[j] = columnMaxima(bl.cz[j], root)
		}
	})
	bound := m*mx.ca[k] + sigma*mx.cz[k]
	margin := 1e-9 * (m*mx.caAbs[k] + sigma*mx.czAbs[k] + math.Abs(cut))
	return m >= 0 && bound+margin < cut
}

// columnMaxima are max_s x_s/root_s and max_s |x_s|/root_s over root_s > 0
// (−∞ and 0 when there is none).
func columnMaxima(x, root []float64) (hi, abs float64) {
	hi = math.Inf(-1)
	for s, r := range root {
		if r > 0 {
			v := x[s] / r
			hi, abs = max(hi, v), max(abs, math.Abs(v))
		}
	}
	return hi, abs
}

package forecast

import (
	"math"
	"slices"
	"sync"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/recovery"
)

// verdictTests forecasts locate's verdict on each simulated release: what
// locate computes on its one release besides the forecast (Judge) — the
// evidence test against pure noise (recovery.EvidenceTest) and the mass
// the readings carry (EstimateMass) — with their null draws made once for
// every trial of one model (the mass's per model, the evidence's per model
// and σ: with missing sensors each block of trials has its own rows'
// model, and a null drawn on another model is not this one's). A trial's
// verdict mass is the mass's 95% lower bound when the evidence test finds
// a source, 0 otherwise; locate calls the release an answer when its
// forecast at that mass is (VerdictThreshold).
type verdictTests struct {
	seed uint64
	part []int
	// size and logSize are each community's nodes (the test's ids) and
	// their log.
	size, logSize []float64

	mu       sync.Mutex
	mass     map[*recovery.Model]*massBound
	evidence map[nullKey][]float64 // null draws by model and σ
	kept     *keptQuantile         // the first model's mass quantile across runs (nil: drawn)
	// nulled, when non-nil, is told of each null draw once it is made (a
	// bar counting them: massBar.nulled).
	nulled func(k int)
}

// nullKey names the evidence test's null draws: a model and a σ.
type nullKey struct {
	model *recovery.Model
	sigma float64
}

// newVerdictTests are the verdict's tests on part, their nulls seeded by
// seed (locate seeds them by its own seed; any seed gives the same
// rates in law).
func newVerdictTests(seed uint64, part []int) *verdictTests {
	canon, k := community.Canonical(nil, part) // the test's ids index its communities
	v := &verdictTests{seed: seed, part: canon, size: make([]float64, k), logSize: make([]float64, k),
		mass: map[*recovery.Model]*massBound{}, evidence: map[nullKey][]float64{}}
	for c, n := range memberCounts(canon) {
		v.size[c], v.logSize[c] = float64(n), math.Log(float64(n))
	}
	return v
}

// tests are model md's mass bound and the evidence test's null at σ,
// drawn at the first ask.
func (v *verdictTests) tests(md *recovery.Model, sigma float64) (*massBound, []float64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	mass, ok := v.mass[md]
	if !ok {
		mass = v.newMass(md)
		v.mass[md] = mass
	}
	null, ok := v.evidence[nullKey{md, sigma}]
	if !ok {
		t := v.test()
		t.Progress = v.nullProgress()
		null = t.Null(md.Problem(nil, sigma)) // the null reads no readings
		v.evidence[nullKey{md, sigma}] = null
	}
	return mass, null
}

// nullProgress is the progress of a null's draws that tells v.nulled of
// each (nil without it).
func (v *verdictTests) nullProgress() func(done, total int) {
	if v.nulled == nil {
		return nil
	}
	return func(int, int) { v.nulled(1) }
}

// test is the evidence test locate runs.
func (v *verdictTests) test() recovery.EvidenceTest {
	return recovery.EvidenceTest{Seed: v.seed, Partition: v.part}
}

// verdictMass is the verdict mass of readings y with noise σ on model md
// (see verdictTests): 0 when the evidence test cannot tell y from noise.
// c, when non-nil, is Mᵀy (a trial's correlations; not changed): both
// statistics read it instead of an action of their own each, which
// doubled a plan's per-node forecasts on the power grid (10.8 s → 24.9 s).
func (v *verdictTests) verdictMass(md *recovery.Model, y, c []float64, sigma float64) float64 {
	mass, null := v.tests(md, sigma)
	if c == nil {
		c = make([]float64, md.N())
		md.ApplyT(c, y)
	}
	// StatisticOf overwrites its correlations: the mass reads c first.
	low := mass.estimateFrom(y, c, sigma).Low
	if low == 0 { // 0 whatever the evidence test says
		return 0
	}
	if recovery.PValueOf(v.test().StatisticOf(md.Problem(y, sigma), slices.Clone(c)), null) > recovery.NoiseLevel {
		return 0
	}
	return low
}

// VerdictRateOf is the rate at which locate calls releases an answer,
// given their verdict masses (verdictTests; 0: noise) and the curve by
// source mass (ascending masses) of releases like them: each release's
// forecast at its verdict mass (AtMass, PerNode's sequential test of
// rounds of roundTrials trials against guess) answers with the
// probability PerNodeAnswers gives at the curve's rate at that mass
// (interpolated in log mass between the curve's points). A plan hands it
// its verdict curve (verdictCurve), whose points are close where the
// answers turn: the grid alone, stepping by √10, overstated the power
// grid's rate by 7 points.
func VerdictRateOf(masses []float64, curve []MassPoint, guess float64, roundTrials int) float64 {
	if len(masses) == 0 || len(curve) == 0 {
		return math.NaN()
	}
	answers := newAnswerTable(guess, roundTrials)
	var sum float64
	for _, m := range masses {
		if m > 0 {
			sum += answers.at(rateAt(curve, m))
		}
	}
	return math.Min(1, sum/float64(len(masses))) // the sums' rounding
}

// verdictCurve is curve (MassCurve's points, their rates simulated) with
// rates simulated at more masses where locate's answers turn: the
// probability that locate's forecast answers (PerNodeAnswers, guess,
// roundTrials a round) climbs from ~0 to ~1 over a few tenths of a unit
// of log mass, where the rate is ~2–3 guesses and the curve is still
// convex in log mass — so the line between two grid points √10 apart
// puts that climb too low, and every verdict mass below it is counted an
// answer (the power grid at ε = 4: 10-unit sources' verdict masses,
// median 2 units, fall on the climb between 1 and 3.16 units; the grid
// forecast 0.71 where locate answered 0.61, a curve measured at 24
// masses 0.64). A segment is halved (its rate simulated at the geometric
// mean, rate(m) — Trials trials of the curve's pool) while it is wider than
// refineRatio, some verdict mass (masses, ascending) falls inside it and
// the answer probabilities at its ends differ by more than refineAnswers
// — the segment holding the most verdict masses times that difference
// first, at most refineMax in all; then the rates are made non-decreasing
// in mass (pool-adjacent violators: the rate grows with the mass, and a
// point's sampling error must not turn the answers back). At most three
// halvings of a grid step: on the power grid four masses, 800 trials
// more than the curve's ~1 800.
func verdictCurve(curve []MassPoint, masses []float64, guess float64, roundTrials int, rate func(m float64) (float64, error)) ([]MassPoint, error) {
	answers := newAnswerTable(guess, roundTrials)
	out := slices.Clone(curve)
	// inside counts the verdict masses strictly between lo and hi.
	inside := func(lo, hi float64) int {
		i, _ := slices.BinarySearch(masses, math.Nextafter(lo, math.Inf(1)))
		j, _ := slices.BinarySearch(masses, hi)
		return max(j-i, 0)
	}
	for range refineMax {
		best, at := 0.0, -1
		for i := 0; i+1 < len(out); i++ {
			lo, hi := out[i], out[i+1]
			turn := math.Abs(answers.at(hi.CommunityAccuracy) - answers.at(lo.CommunityAccuracy))
			if hi.Mass <= lo.Mass*refineRatio || turn <= refineAnswers {
				continue
			}
			if w := float64(inside(lo.Mass, hi.Mass)) * turn; w > best {
				best, at = w, i
			}
		}
		if at < 0 {
			break
		}
		m := math.Sqrt(out[at].Mass * out[at+1].Mass)
		r, err := rate(m)
		if err != nil {
			return nil, err
		}
		out = slices.Insert(out, at+1, MassPoint{Mass: m, CommunityAccuracy: r})
	}
	monotoneRates(out)
	return out, nil
}

const (
	// refineRatio: a verdict curve's segments are halved down to a ratio
	// of masses of 10^(1/16) (three halvings of the grid's √10).
	refineRatio = 1.16
	// refineAnswers: a segment whose ends' answer probabilities differ by
	// no more is not halved.
	refineAnswers = 0.05
	// refineMax bounds the masses added to one curve (at Trials trials
	// each), the segments with the most verdict masses times the largest
	// turn of the answers first.
	refineMax = 8
)

// monotoneRates makes the points' rates non-decreasing in mass, each the
// mean of the run of neighbours it is pooled with (pool-adjacent
// violators, equal weights): the least-squares non-decreasing fit.
func monotoneRates(pts []MassPoint) {
	type block struct {
		sum float64
		n   int
	}
	var blocks []block
	for _, p := range pts {
		blocks = append(blocks, block{p.CommunityAccuracy, 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.n) <= b.sum/float64(b.n) {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	i := 0
	for _, b := range blocks {
		for range b.n {
			pts[i].CommunityAccuracy = b.sum / float64(b.n)
			i++
		}
	}
}

// rateAt is the curve's rate at mass m: interpolated in log mass between
// its points, its first's below them and its last's above.
func rateAt(curve []MassPoint, m float64) float64 {
	if m <= curve[0].Mass {
		return curve[0].CommunityAccuracy
	}
	for i := 1; i < len(curve); i++ {
		lo, hi := curve[i-1], curve[i]
		if m <= hi.Mass {
			t := (math.Log(m) - math.Log(lo.Mass)) / (math.Log(hi.Mass) - math.Log(lo.Mass))
			return lo.CommunityAccuracy + t*(hi.CommunityAccuracy-lo.CommunityAccuracy)
		}
	}
	return curve[len(curve)-1].CommunityAccuracy
}

// PerNodeAnswers is the probability that PerNode's sequential test calls
// releases right at rate a an answer: rounds of trials sources, each right
// with probability a; after round r (r·trials in all, k right) an answer
// when the Wilson lower bound at zVerdict clears guess, noise when the
// upper bound is below twice the guess, another round otherwise, noise
// after VerdictRounds. Exact for one source a trial (each trial right or
// not), by the distribution of k over the undecided rounds.
func PerNodeAnswers(a, guess float64, trials int) float64 {
	if trials < 1 {
		return math.NaN()
	}
	a = math.Min(1, math.Max(0, a))
	pmf := binomialPMF(trials, a)
	undecided := []float64{1} // by right count so far
	answer := 0.0
	for r := 1; r <= VerdictRounds; r++ {
		next := make([]float64, len(undecided)+trials)
		for k, p := range undecided {
			if p == 0 {
				continue
			}
			for j, q := range pmf {
				next[k+j] += p * q
			}
		}
		T := float64(r * trials)
		for k, p := range next {
			lo, hi := Wilson(float64(k), T, zVerdict)
			switch {
			case lo > guess:
				answer += p
				next[k] = 0
			case hi < 2*guess:
				next[k] = 0
			}
		}
		undecided = next
	}
	return math.Min(1, answer)
}

// binomialPMF is Binomial(n, a)'s probabilities of 0 … n.
func binomialPMF(n int, a float64) []float64 {
	out := make([]float64, n+1)
	switch a {
	case 0:
		out[0] = 1
		return out
	case 1:
		out[n] = 1
		return out
	}
	lgn, _ := math.Lgamma(float64(n + 1))
	for k := range out {
		lk, _ := math.Lgamma(float64(k + 1))
		lnk, _ := math.Lgamma(float64(n - k + 1))
		out[k] = math.Exp(lgn - lk - lnk + float64(k)*math.Log(a) + float64(n-k)*math.Log1p(-a))
	}
	return out
}

// answerTable is PerNodeAnswers tabulated on a grid of rates (one
// sequential test per grid point, not per release), read by linear
// interpolation.
type answerTable struct{ p []float64 }

// answerSteps is the grid's steps over [0, 1].
const answerSteps = 200

func newAnswerTable(guess float64, trials int) answerTable {
	t := answerTable{p: make([]float64, answerSteps+1)}
	for i := range t.p {
		t.p[i] = PerNodeAnswers(float64(i)/answerSteps, guess, trials)
	}
	return t
}

func (t answerTable) at(a float64) float64 {
	x := math.Min(1, math.Max(0, a)) * answerSteps
	i := min(int(x), answerSteps-1)
	return t.p[i] + (x-float64(i))*(t.p[i+1]-t.p[i])
}

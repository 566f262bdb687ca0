package forecast

import (
	"context"
	"math"
	"slices"

	"github.com/graphcloak/graphcloak/internal/cputime"
)

// MassCurveWork is the work MassCurves does on its curves: per point of
// MassGrid and per curve, the rounds of trials simulated there (0: a mass
// taken as sure, not simulated), all on one pool; foreseen
// (ForeseeMassCurves), also what its pilot timed.
type MassCurveWork struct {
	Rounds [][]int
	// Beyond is, by curve, the trials scored after the grid, on its pool:
	// at mass 0 for the paired test (as many as its most simulated
	// point), the verdict curve's refinement masses (Trials each) and
	// locate's step's forecast runs (stepTrials); BeyondDrawn the trials
	// of the pool they draw beyond the grid's.
	Beyond      []int
	BeyondDrawn int
	// Pilot is the foresight's timing (seconds with the machine's cores its
	// own, cputime.Clock; zero for work done).
	Pilot PilotCost
}

// PilotCost is what ForeseeMassCurves' pilot took: the pool's models
// built (Setup), each curve's fixed work at its σ (Fixed: the verdict's
// null draws, once a σ), a trial drawn (Draw: its share of a block's
// actions) and a trial scored at one point (Score: its recovery, ranking
// and verdict).
type PilotCost struct {
	Setup, Fixed, Draw, Score float64
}

// Seconds prices MassCurves' work w with trials trials a round at p:
// the setup and fixed work once, each round drawn once for every curve,
// scored at each.
func (w MassCurveWork) Seconds(trials int, p PilotCost) float64 {
	drawn := w.Drawn()*trials + w.BeyondDrawn
	return p.Setup + p.Fixed + float64(drawn)*p.Draw + float64(w.Scored()*trials+w.ScoredBeyond())*p.Score
}

// ScoredBeyond is the trials scored after the grid, every curve's.
func (w MassCurveWork) ScoredBeyond() int {
	n := 0
	for _, k := range w.Beyond {
		n += k
	}
	return n
}

// Masses is how many points of the grid any curve simulates.
func (w MassCurveWork) Masses() int {
	n := 0
	for _, r := range w.Rounds {
		if max0(r) > 0 {
			n++
		}
	}
	return n
}

// Drawn is the rounds of trials the grid draws: the most any point
// takes (every mass and curve scores the first trials of one pool, each
// round's drawn once for all).
func (w MassCurveWork) Drawn() int {
	n := 0
	for _, r := range w.Rounds {
		n = max(n, max0(r))
	}
	return n
}

// Scored is the rounds of trials scored, every curve's.
func (w MassCurveWork) Scored() int {
	n := 0
	for _, r := range w.Rounds {
		for _, k := range r {
			n += k
		}
	}
	return n
}

func max0(r []int) int {
	m := 0
	for _, k := range r {
		m = max(m, k)
	}
	return m
}

// ForeseeMassCurves foresees the work MassCurves does on es (the curves
// of a plan: each ε, at σ calibrated to es' Sensitivity, or Sigma) before
// it runs, from a pilot: one block of TrialBlock trials drawn once from
// seed, pilotTrials of them scored at every mass of the grid and every
// curve's σ. Each
// point's rounds are those PerNode's tests take when the rate of every
// round is the pilot's (its expected count); a point answered ≥ 99% of
// the time counts towards the two sure masses after which MassCurves
// simulates no larger one. With Δ2 an upper bound, σ is too and the
// foresight errs towards more work. Its cost is the pool's models, a
// block's draw and at most len(MassGrid())·len(es) scorings of a block,
// each timed (Pilot): what MassCurves pays for the same, so that the
// work foreseen is priced by it (MassCurveWork.Seconds).
func ForeseeMassCurves(ctx context.Context, es []Simulation, seed uint64) (MassCurveWork, error) {
	if len(es) == 0 {
		return MassCurveWork{}, nil
	}
	base := es[0]
	if base.Partition == nil {
		part, _, _, err := base.communities()
		if err != nil {
			return MassCurveWork{}, err
		}
		base.Partition, base.Names = part, nil
	}
	base.Seed, base.Trials = seed, trialBlock
	clock := cputime.Start()
	pool, err := NewTrialPool(base)
	if err != nil {
		return MassCurveWork{}, err
	}
	setup := clock.Seconds()
	clock = cputime.Start()
	if blk := pool.block(0); blk.err != nil { // drawn once, apart from its scoring
		return MassCurveWork{}, blk.err
	}
	draw := clock.Seconds() / trialBlock
	grid := MassGrid()
	w := MassCurveWork{Rounds: make([][]int, len(grid))}
	sure := make([]int, len(es))
	// Locate's verdict on each trial, as the curves score them, is timed on
	// the first curve's first two points only (its nulls and mass bound
	// drawn once a σ: a minute of CPU on e-mail Enron): the first's time
	// less the second's is a σ's fixed work, the second's less a plain
	// scoring a trial's verdict. The rest score without it (the rounds
	// foreseen do not depend on it).
	var timedVerdicts [2]float64
	plain := []float64{}
	verdicts := newVerdictTests(seed, base.Partition)
	pilots := make([][]*Forecast, len(es)) // by curve, each simulated point's pilot (nil: not simulated)
	for i, m := range grid {
		w.Rounds[i] = make([]int, len(es))
		for j := range es {
			pilots[j] = append(pilots[j], nil)
			if sure[j] >= 2 && m > 1 {
				continue
			}
			e := es[j]
			e.Graph, e.Partition, e.Names, e.Tau, e.Sources = base.Graph, base.Partition, base.Names, base.Tau, base.Sources
			e.Seed, e.Trials, e.Pool, e.noEMD, e.Verdicts, e.verdicts = seed, pilotTrials, pool, true, false, nil
			withVerdict := j == 0 && i < 2
			if withVerdict {
				e.verdicts = verdicts
			}
			e.Progress, e.TimeBudget, e.MinTrials = nil, 0, 0
			e.SourceMass = m / float64(max(e.Sources, 1))
			clock := cputime.Start()
			res, err := Simulate(ctx, e)
			if err != nil {
				return MassCurveWork{}, err
			}
			if t := clock.Seconds(); withVerdict {
				timedVerdicts[i] = t
			} else {
				plain = append(plain, t)
			}
			f := Of(res)
			pilots[j][i] = &f
			rounds, answer := VerdictRoundsAt(f.CommunityAccuracy, f.Guess(), es[0].Trials)
			w.Rounds[i][j] = rounds
			if answer && f.CommunityAccuracy >= 0.99 {
				sure[j]++
			} else {
				sure[j] = 0
			}
		}
	}
	w.foreseeBeyond(es, pilots)
	score := timedVerdicts[1] / pilotTrials
	if len(plain) > 0 {
		slices.Sort(plain)
		score = plain[len(plain)/2] / pilotTrials
	}
	verdict := max(0, timedVerdicts[1]/pilotTrials-score)
	fixed := float64(len(es)) * max(0, timedVerdicts[0]-timedVerdicts[1])
	w.Pilot = PilotCost{Setup: setup, Fixed: fixed, Draw: draw, Score: score + verdict}
	return w, nil
}

// foreseeBeyond foresees the work after the grid (Beyond, BeyondDrawn)
// from the pilot's rates at each curve's points: the paired test's
// mass-0 trials, as many as the curve's most rounds (one source a trial);
// a verdict curve is refined on each grid step whose ends' answer
// probabilities differ by more than refineAnswers (up to seven masses a
// step, refineMax in all), and locate's step runs (stepTrials) where a
// step turns — with verdicts, and every sensor reporting.
func (w *MassCurveWork) foreseeBeyond(es []Simulation, pilots [][]*Forecast) {
	base := es[0]
	w.Beyond = make([]int, len(es))
	per, rounds := max(base.Trials, 1), verdictRoundTrials(base)
	need := 0 // the shared pool's trials the work after the grid reads
	for j, pts := range pilots {
		if base.Sources <= 1 {
			for i := range w.Rounds {
				w.Beyond[j] = max(w.Beyond[j], w.Rounds[i][j]*per)
			}
		}
		if !base.Verdicts {
			continue
		}
		turning, last := 0, math.NaN() // the last point's answer probability
		for _, f := range pts {
			if f == nil {
				continue
			}
			a := PerNodeAnswers(f.CommunityAccuracy, f.Guess(), rounds)
			if math.Abs(a-last) > refineAnswers {
				turning++
			}
			last = a
		}
		if turning == 0 {
			continue
		}
		w.Beyond[j] += min(refineMax, 7*turning) * per
		need = max(need, per)
		if base.Missing == 0 && base.Reported == nil {
			w.Beyond[j] += stepTrials(rounds)
			need = max(need, 2*rounds)
		}
	}
	w.BeyondDrawn = max(0, need-w.Drawn()*per)
}

// pilotTrials are the trials ForeseeMassCurves scores at each point: half
// the block it draws (a point's rate to ±0.12 at 0.5, enough to tell a
// mass far from the guess, or sure, from one near it), so that its
// scorings — a trial 70 ms on polblogs under load — stay within
// seconds.
const pilotTrials = trialBlock / 2

// VerdictRoundsAt is the rounds of trials trials PerNode takes, and its
// verdict (an answer: true), when every round's rate is rate against a
// guess of guess: its tests on the expected count.
func VerdictRoundsAt(rate, guess float64, trials int) (int, bool) {
	trials = max(trials, 1)
	for r := 1; r <= VerdictRounds; r++ {
		T := float64(r * trials)
		lo, hi := Wilson(math.Round(rate*T), T, zVerdict)
		switch {
		case lo > guess:
			return r, true
		case hi < 2*guess:
			return r, false
		}
	}
	T := float64(VerdictRounds * trials)
	lo, _ := Wilson(math.Round(rate*T), T, zVerdict)
	return VerdictRounds, lo > guess
}

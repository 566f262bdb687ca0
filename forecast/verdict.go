package forecast

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/recovery"
)

// VerdictRounds bounds the rounds of PerNode: at most this many
// times the asked trials are simulated.
const VerdictRounds = 4

// zVerdict is the one-sided normal quantile of each round's test:
// 0.05/VerdictRounds per look (Bonferroni), so that all looks together
// err with probability at most 5% either way.
const zVerdict = 2.2414027276049473

// PerNode is the per-node forecast that decides locate's noise
// verdict: is a release like this one (e's graph, partition, σ, τ and
// estimator) right more often than a guess — the better of chance and
// always naming the largest community (Forecast.Guess)? It simulates
// e.Trials sources per round, each round the next trials of one
// TrialPool (e.Pool, or one drawn from e.Seed),
// and after each round tests the pooled rate one-sided (zVerdict): above
// the guess — an answer; below twice the guess — noise; otherwise it
// simulates another round. After VerdictRounds undecided rounds it calls
// noise unless the rate's lower bound clears the guess. With 100 trials a
// round, a release right 10% of the time against a guess of 4% is
// mostly decided in one or two rounds, one right as often as the guess
// in two or three; rates in between may take all four.
//
// The returned forecast pools every round (Trials is their total) and
// its AtChance is the verdict. e.Partition must be set or is computed
// once from e.Seed, so every round scores the same communities.
func PerNode(ctx context.Context, e Simulation) (Forecast, error) {
	if e.Partition == nil {
		part, _, _, err := e.communities()
		if err != nil {
			return Forecast{}, err
		}
		e.Partition, e.Names = part, nil
	}
	if e.Pool == nil {
		// The rounds draw from one pool: the models are built once, and
		// round r takes the pool's trials r·Trials … (not a seed of its own).
		pool, err := NewTrialPool(e)
		if err != nil {
			return Forecast{}, err
		}
		e.Pool = pool
	}
	if e.Verdicts && e.verdicts == nil { // one set of nulls for every round
		e.verdicts = newVerdictTests(e.Seed, e.Partition)
	}
	var pooled *Forecast
	var right, in90, size, flagged float64
	for r := range VerdictRounds {
		round := e
		round.Seed, round.noEMD = e.Seed+uint64(r), true
		round.trialOffset = r * e.Trials // with a Pool: its next trials
		res, err := Simulate(ctx, round)
		if err != nil {
			return Forecast{}, err
		}
		f := Of(res)
		n := float64(f.Trials)
		right += f.CommunityAccuracy * n
		in90 += f.In90Rate * n
		size += f.In90Size * n
		flagged += f.NoiseDominatedRate * n
		if pooled == nil {
			pooled = &f
		} else {
			pooled.Trials += f.Trials
			if pooled.verdictMasses != nil {
				pooled.verdictMasses = append(pooled.verdictMasses, f.verdictMasses...)
			}
			pooled.rights = append(slices.Clip(pooled.rights), f.rights...)
		}
		T := float64(pooled.Trials)
		pooled.CommunityAccuracy, pooled.In90Rate, pooled.In90Size, pooled.NoiseDominatedRate = right/T, in90/T, size/T, flagged/T
		pooled.Low, pooled.High = Wilson(right, T, Z95)
		pooled.In90Low, pooled.In90High = Wilson(math.Round(in90), T, Z95)
		pooled.finish()
		lo, hi := Wilson(right, T, zVerdict)
		guess := pooled.Guess()
		switch {
		case lo > guess:
			pooled.AtChance = false
			return *pooled, nil
		case hi < 2*guess:
			pooled.AtChance = true
			return *pooled, nil
		}
	}
	lo, _ := Wilson(right, float64(pooled.Trials), zVerdict)
	pooled.AtChance = lo <= pooled.Guess()
	return *pooled, nil
}

// Verdict is one stated verdict on a release: noise or an answer, and
// why. It reconciles the evidence test (is there a source at all?), the
// source mass the release carries (EstimateMass) and the forecast at that
// mass (is a release carrying it right more often than a guess?):
// docs/guarantee.md derives its error rates.
type Verdict struct {
	Noise  bool   `json:"noiseDominated"`
	Reason string `json:"reason"`
	// Mass is the source mass the release carries; the forecast simulated
	// sources of Mass.Low in total (nothing when Low is 0).
	Mass MassEstimate `json:"sourceMass"`
	// PValue is the evidence test's against pure noise
	// (recovery.EvidenceTest).
	PValue float64 `json:"evidencePValue"`
}

// Judge states the verdict on a release whose readings carry mass m,
// whose evidence test against pure noise gave pValue, and whose releases
// with sources of m.Low in total forecast f (nil when m.Low is 0). Noise
// when the evidence test finds no source (p > recovery.NoiseLevel), when
// the mass cannot be told from 0, or when even releases carrying that
// mass cannot be told from a guess (f.AtChance); an answer otherwise.
func Judge(f *Forecast, m MassEstimate, pValue float64) Verdict {
	v := Verdict{Mass: m, PValue: pValue}
	mass := fmt.Sprintf("a source of at least %.3g units (the readings carry %.3g ± %.2g)", m.Low, m.Mass, m.SE)
	if m.Given {
		mass = fmt.Sprintf("a source of %.3g units (%s)", m.Mass, m.stated())
	}
	switch {
	case pValue > recovery.NoiseLevel:
		v.Noise = true
		v.Reason = fmt.Sprintf("noise: the evidence test cannot tell these readings from pure noise (p = %.3g > %g) — not a finding", pValue, recovery.NoiseLevel)
	case !(m.Low > 0) || f == nil:
		v.Noise = true
		v.Reason = fmt.Sprintf("noise: the readings carry no source mass that can be told from 0 (%s) — not a finding", m)
	case f.AtChance:
		v.Noise = true
		v.Reason = fmt.Sprintf("noise: releases like this one with %s name the right community %.1f%% [%.1f%%, %.1f%%] of the time (%d simulated), "+
			"which cannot be told from a guess (%.1f%%) — not a finding", mass, 100*f.CommunityAccuracy, 100*f.Low, 100*f.High, f.Trials, 100*f.Guess())
	default:
		v.Reason = fmt.Sprintf("%s: evidence of a source (p = %.3g); releases like this one with %s name the right community %.1f%% [%.1f%%, %.1f%%] "+
			"of the time (%d simulated) against a guess of %.1f%%", AnswerLabel(f), pValue, mass, 100*f.CommunityAccuracy, 100*f.Low, 100*f.High, f.Trials, 100*f.Guess())
	}
	return v
}

// AnswerLabel is how a verdict above chance names releases forecast f:
// "answer" when they name the right community more often than not (the
// 95% interval above one half); else it says they beat a guess yet are
// wrong most of the time, so that a release right 36% of the time is not
// called an answer.
func AnswerLabel(f *Forecast) string {
	if f.Low >= 0.5 {
		return "answer"
	}
	return fmt.Sprintf("better than a guess, not an answer (wrong %.0f%% of the time)", 100*(1-f.CommunityAccuracy))
}

// AtMass is PerNode with sources of total mass m.Low
// (split among e.Sources): the forecast a verdict on a release carrying
// m rests on; nil when m.Low is 0 (nothing to simulate).
func AtMass(ctx context.Context, e Simulation, m MassEstimate) (*Forecast, error) {
	if !(m.Low > 0) {
		return nil, nil
	}
	e.SourceMass = m.Low / float64(max(e.Sources, 1))
	f, err := PerNode(ctx, e)
	if err != nil {
		return nil, err
	}
	f.SourceMass = m.Low
	return &f, nil
}

// MassPoint is the forecast at one total source mass.
type MassPoint struct {
	Mass              float64 `json:"mass"`
	CommunityAccuracy float64 `json:"communityAccuracy"`
	Low               float64 `json:"low"`
	High              float64 `json:"high"`
	AtChance          bool    `json:"atChance"`
	// VerdictRate is the share of releases with sources of this mass that
	// locate calls an answer (Forecast.VerdictRate), forecast on
	// VerdictTrials of them (0: not forecast).
	VerdictRate   float64 `json:"verdictRate"`
	VerdictTrials int     `json:"verdictTrials,omitempty"`
}

// MassGrid is the source masses a plan forecasts: 0.1 … 1000 units in
// steps of √10. Its largest, MaxMass, is the documented maximum a dry run
// judges a release by when no source mass is stated.
func MassGrid() []float64 {
	return []float64{0.1, 0.316, 1, 3.16, 10, 31.6, 100, 316, MaxMass}
}

// Units says a source mass: "1 unit", "40 units".
func Units(m float64) string {
	if m == 1 {
		return "1 unit"
	}
	return fmt.Sprintf("%.3g units", m)
}

// MaxMass is MassGrid's largest mass (units).
const MaxMass float64 = 1000

// SubSeed is the seed of the simulation at parameter x (an ε, a salt)
// derived from seed: a splitmix64 mix of seed and x's bits, so that
// simulations at different x are independent draws.
func SubSeed(seed uint64, x float64) uint64 {
	z := seed ^ (math.Float64bits(x) * 0x9e3779b97f4a7c15)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// MassCurve forecasts e at every mass of MassGrid (each as a verdict
// would, PerNode, all on one pool of trials drawn from e.Seed — locate's
// own forecast at each mass) and returns the curve and the resolvable
// mass: the smallest mass from which on every mass of the grid is an
// answer (0: not even MaxMass). The rate grows with the mass, so an
// answer below a mass at chance is a simulation's error (each point errs
// with probability ≤ 5%, about 2% at no signal), and the masses below the
// resolvable one are marked at chance. On one pool the points' errors go
// together — a lucky sample of sources sits under every mass — so a point
// answers only when the paired test (pairedAnswer: the same trials at
// mass 0 as control variate, the luck subtracted) answers too
// (docs/derivations.md §6). Once two masses in a row are answers right
// ≥ 99% of the time the larger ones are taken to be so too (not
// simulated).
func MassCurve(ctx context.Context, e Simulation) ([]MassPoint, float64, error) {
	return MassCurveWithUnit(ctx, e, nil)
}

// MassCurveWithUnit is MassCurve whose 1-unit point is unit, a forecast
// already made of e at unit sources (PerNode, or AtMass at one unit: the
// same simulation, seed e.Seed), instead of simulating it again; nil
// simulates it.
func MassCurveWithUnit(ctx context.Context, e Simulation, unit *Forecast) ([]MassPoint, float64, error) {
	cs, err := massCurves(ctx, []Simulation{e}, e.Seed, unit, nil, nil)
	if err != nil {
		return nil, 0, err
	}
	return cs[0].Points, cs[0].Resolvable, nil
}

// MassCurveResult is one curve of MassCurves: its points, the resolvable
// mass, and its 1-unit point's forecast in full (a plan's row).
type MassCurveResult struct {
	Points     []MassPoint
	Resolvable float64
	Unit       Forecast
	// LocateStep is the verdict mass above which locate's own seeded
	// forecast answers (locateStep), the verdict rates read off it; 0:
	// not found, or missing sensors — the rates are then the averaged
	// model's (VerdictRateOf).
	LocateStep float64
	// verdictCurve is the curve the verdict rates are read off
	// (verdictCurve); verdictMasses are each point's trials' verdict
	// masses (nil: none).
	verdictCurve  []MassPoint
	verdictMasses [][]float64
	// rounds are the rounds of trials simulated at each point (0: taken
	// as sure, or the given unit point): what ForeseeMassCurves foresees.
	rounds []int
	// beyond is the trials scored after the grid: at mass 0 for the
	// paired test, at the refinement masses and in locate's step's
	// forecast runs (ForeseeMassCurves' Beyond).
	beyond int
	// poolsDrawn is how many pools of trials the run drew (every curve's:
	// one), trialsDrawn the trials drawn on it.
	poolsDrawn, trialsDrawn int
}

// VerdictCurve is the curve r's verdict rates are read off: its points
// and the masses simulated where locate's answers turn (verdictCurve),
// rates made non-decreasing. nil when no point forecast a verdict.
func (r MassCurveResult) VerdictCurve() []MassPoint { return slices.Clone(r.verdictCurve) }

// MassCurves is MassCurve for several noise levels at once: es differ in
// ε or σ only (the first one's graph, partition, τ, sources, trials and
// progress serve all). Every mass of every curve, the verdict curves'
// refinement masses, the paired test's mass 0 and locate's step score the
// trials of one pool drawn from seed (a TrialPool: trials are linear in
// the mass, ỹ = m·a + σ·z): a plan at five ε and nine masses pays for the
// diffusions of one pool's trials, where each mass drew its own before.
func MassCurves(ctx context.Context, es []Simulation, seed uint64) ([]MassCurveResult, error) {
	return massCurves(ctx, es, seed, nil, nil, nil)
}

// massCurves is MassCurves; unit, when non-nil, is the one curve's 1-unit
// point (MassCurveWithUnit); kept, when non-nil, keeps the mass bound's
// null quantile across runs and trials, when non-nil, the pool's blocks
// (a sweep's Memo).
func massCurves(ctx context.Context, es []Simulation, seed uint64, unit *Forecast, kept *keptQuantile, trials *keptTrials) ([]MassCurveResult, error) {
	if len(es) == 0 {
		return nil, nil
	}
	base := es[0]
	if base.Partition == nil {
		part, _, _, err := base.communities()
		if err != nil {
			return nil, err
		}
		base.Partition, base.Names = part, nil
	}
	grid := MassGrid()
	per := max(base.Trials, 1)
	// The verdict curve's refinement masses each curve may add, and
	// locate's step's trials: every point scores locate's verdict (the
	// run's verdictTests), so they run with Verdicts unset too, and the
	// bar counts them (it sat at 99 % through them, issue 79).
	refine, step := refineMax, 0
	if base.Missing == 0 && base.Reported == nil {
		step = stepTrials(verdictRoundTrials(base))
	}
	w := base.barCost.weights()
	c := &curveRun{es: es, base: base, seed: seed, unit: unit, out: make([]MassCurveResult, len(es)), kept: trials,
		verdicts: newVerdictTests(seed, base.Partition).keeping(kept), masses: make([][][]float64, len(es)), rights: make([][][]float64, len(es)), sure: make([]int, len(es)),
		bar: &massBar{report: base.Progress, w: w, total: (len(grid)+1+refine)*len(es)*per + len(es)*step,
			drawPlanned: w.draw * foreseenDraws(base, per, step), nullPlanned: w.null * foreseenNulls(len(es), kept)}, per: per, stepSlot: step}
	c.verdicts.nulled = c.bar.nulled
	for _, m := range grid {
		for j := range es {
			if err := c.bar.part(per, func() error { return c.point(ctx, j, m) }); err != nil {
				return nil, err
			}
		}
	}
	for j := range c.out { // on the grid's trials, before they are let go
		if err := c.bar.part(per, func() error { return c.pairPoints(ctx, j) }); err != nil {
			return nil, err
		}
	}
	if c.pool != nil && base.Verdicts {
		// Kept past the grid for the refinements (one round) and locate's
		// step (its rounds): the rest is let go now.
		c.pool.keepFirst(max(per, VerdictRounds*verdictRoundTrials(base)))
	}
	for j := range c.out {
		if err := c.bar.part(refine*per+step, func() error { return c.finish(ctx, j) }); err != nil {
			return nil, err
		}
	}
	pools, drawn := c.drawn()
	for j := range c.out {
		c.out[j].poolsDrawn, c.out[j].trialsDrawn = pools, drawn
	}
	c.bar.end()
	return c.out, nil
}

// curveRun is one massCurves run: its curves as they grow, mass by mass.
type curveRun struct {
	es   []Simulation
	base Simulation // the first level's, with the partition scored
	seed uint64
	unit *Forecast
	out  []MassCurveResult
	// Locate's verdict on every simulated release: its tests' nulls drawn
	// once for every mass and ε.
	verdicts *verdictTests
	masses   [][][]float64 // by curve and point: the verdict masses
	rights   [][][]float64 // by curve and point: each trial right or not (nil: not simulated)
	sure     []int         // by curve: masses in a row answered ≥ 99% of the time
	// One bar for every curve (massBar): each point a round of per
	// trials foreseen, each curve's mass-0 scoring per, its refinements
	// refineMax·per and its step stepSlot; the bar ends only with the
	// curves.
	bar           *massBar
	per, stepSlot int
	// pool is the run's trials (seed: locate's), drawn once for every mass,
	// ε, refinement and locate's step; kept keeps its blocks across runs
	// (nil: not kept).
	pool *TrialPool
	kept *keptTrials
}

// level is curve j's simulation on the run's graph, partition and
// trials.
func (c *curveRun) level(j int) Simulation {
	e, b := c.es[j], c.base
	e.Graph, e.Partition, e.Names, e.Tau, e.Sources, e.Trials = b.Graph, b.Partition, b.Names, b.Tau, b.Sources, b.Trials
	return e
}

// point adds curve j's point at mass m, a point of the grid: its
// predecessor's once two masses in a row were sure, the given unit
// point, else simulated on the run's pool.
func (c *curveRun) point(ctx context.Context, j int, m float64) error {
	out := &c.out[j]
	switch {
	case c.sure[j] >= 2 && m > 1:
		last := out.Points[len(out.Points)-1]
		last.Mass = m
		out.Points = append(out.Points, last)
		// Its predecessor's verdict masses: a lower bound on its own.
		c.masses[j] = append(c.masses[j], c.masses[j][len(c.masses[j])-1])
		c.rights[j] = append(c.rights[j], nil)
		out.rounds = append(out.rounds, 0)
		return nil
	case m == 1 && c.unit != nil:
		u := c.unit
		out.Unit = *u
		out.Points = append(out.Points, MassPoint{Mass: m, CommunityAccuracy: u.CommunityAccuracy, Low: u.Low, High: u.High, AtChance: u.AtChance})
		c.masses[j] = append(c.masses[j], u.verdictMasses)
		c.rights[j] = append(c.rights[j], u.rights)
		c.sure[j] = sureAfter(u, c.sure[j])
		out.rounds = append(out.rounds, 0)
		return nil
	}
	e := c.level(j)
	e.Seed, e.Progress, e.verdicts = c.seed, nil, c.verdicts
	pool, err := c.sharedPool(e)
	if err != nil {
		return err
	}
	e.Pool = pool
	// Each of PerNode's rounds reports its trials from 1: counted one a
	// report (trials.Run's), a round more growing the bar by a round.
	s := c.bar.slot(c.per, c.per)
	e.Progress = func(int, int) { s.add(1) }
	f, err := AtMass(ctx, e, GivenMass(m, ""))
	if err != nil {
		return err
	}
	if m == 1 {
		out.Unit = *f
		out.Unit.SourceMass = 0 // unit sources, as PerNode reports them
	}
	out.Points = append(out.Points, MassPoint{Mass: m, CommunityAccuracy: f.CommunityAccuracy, Low: f.Low, High: f.High, AtChance: f.AtChance})
	c.masses[j] = append(c.masses[j], f.verdictMasses)
	c.rights[j] = append(c.rights[j], f.rights)
	out.rounds = append(out.rounds, f.Trials/max(e.Trials, 1))
	c.sure[j] = sureAfter(f, c.sure[j])
	return nil
}

// foreseenDraws is the trials of the run's pool massCurves foresees drawn,
// in whole blocks: a round of per for the grid and, with locate's step
// (step trials), the two rounds of its trials ForeseeMassCurves foresees
// it reading (foreseeBeyond).
func foreseenDraws(base Simulation, per, step int) int {
	need := per
	if step > 0 && base.Verdicts {
		need = max(need, 2*verdictRoundTrials(base))
	}
	return (need + trialBlock - 1) / trialBlock * trialBlock
}

// foreseenNulls is the null draws of locate's verdict massCurves
// foresees for curves curves: the evidence test's at each σ and the mass
// bound's once, unless kept holds its quantile (more with missing
// sensors, a model a block: the bar's total grows by them).
func foreseenNulls(curves int, kept *keptQuantile) int {
	n := curves * recovery.DefaultEvidenceDraws
	if kept == nil {
		return n + MassNullDraws
	}
	if _, ok := kept.load(); !ok {
		n += MassNullDraws
	}
	return n
}

// sharedPool is the run's pool (seed c.seed, locate's): the trials of
// every mass and ε of the grid, every refinement mass and locate's step,
// drawn once for all of them.
func (c *curveRun) sharedPool(e Simulation) (*TrialPool, error) {
	if c.pool == nil {
		e.Seed = c.seed
		p, err := NewTrialPool(e)
		if err != nil {
			return nil, err
		}
		p.drew, p.store = c.bar.drew, c.kept
		c.pool = p
	}
	return c.pool, nil
}

// pairPoints asks each of curve j's answering points (PerNode's verdict:
// locate's) to pass the paired test too (pairedAnswer), against the
// pool's trials at mass 0, scored once at the curve's σ — as many as its
// most simulated point took. With several sources a trial (a trial's
// rate then is no single source's chance) each point keeps PerNode's
// verdict alone.
func (c *curveRun) pairPoints(ctx context.Context, j int) error {
	out := &c.out[j]
	T := 0
	for _, rs := range c.rights[j] {
		T = max(T, len(rs))
	}
	if T == 0 || c.base.Sources > 1 {
		return nil
	}
	e := c.level(j)
	pool, err := c.sharedPool(e)
	if err != nil {
		return err
	}
	e.Seed, e.Pool, e.Trials, e.Verdicts, e.verdicts, e.noEMD, e.zeroMass = c.seed, pool, T, false, nil, true, true
	// Its T trials (up to every round of the grid's) fill its share of
	// c.per evenly: the bar neither sits at the share's end nor goes back.
	s := c.bar.slot(c.per, 0)
	e.Progress = func(d, _ int) { s.to(min(d*c.per/T, c.per)) }
	zero, err := Simulate(ctx, e)
	if err != nil {
		return err
	}
	out.beyond += zero.Trials
	guess := out.Unit.Guess()
	for i, rs := range c.rights[j] {
		if p := &out.Points[i]; rs != nil && !p.AtChance {
			p.AtChance = !pairedAnswer(rs, zero, guess)
		}
	}
	return nil
}

// drawn counts the run's pools whose trials were drawn (one, or none),
// and the trials drawn on them (a block again past the pool's budget
// too).
func (c *curveRun) drawn() (pools, trials int) {
	if b := c.pool.drawnBlocks(); b > 0 {
		return 1, b * trialBlock
	}
	return 0, 0
}

// finish ends curve j (its points decided, pairPoints): the masses it
// resolves, and each point's verdict rate.
func (c *curveRun) finish(ctx context.Context, j int) error {
	out := &c.out[j]
	r := ResolvableMass(out.Points)
	for i := range out.Points {
		out.Points[i].AtChance = !(r > 0 && out.Points[i].Mass >= r)
	}
	out.Resolvable = r
	rateOf, err := c.verdictRate(ctx, j)
	if err != nil {
		return err
	}
	for i := range out.Points {
		pt := &out.Points[i]
		vm := c.masses[j][i]
		if len(vm) == 0 {
			out.verdictMasses = append(out.verdictMasses, nil)
			continue
		}
		pt.VerdictRate, pt.VerdictTrials = rateOf(vm), len(vm)
		out.verdictMasses = append(out.verdictMasses, vm)
		if pt.Mass == 1 {
			rate := pt.VerdictRate
			out.Unit.VerdictRate = &rate
		}
	}
	return nil
}

// verdictRate is the rate locate calls curve j's releases an answer, given
// their verdict masses. Locate forecasts each release at its verdict
// mass, in rounds of its own trials: read off a curve with more points
// where the answers turn (verdictCurve). Locate's forecast is seeded: at
// plan's seed (locate's by default) it answers the verdict masses above a
// step (locateStep); with missing sensors each release's reporting
// sensors are its own, and the averaged model stays.
func (c *curveRun) verdictRate(ctx context.Context, j int) (func([]float64) float64, error) {
	out, base := &c.out[j], c.base
	rounds := verdictRoundTrials(base)
	var all []float64
	for _, vm := range c.masses[j] {
		all = append(all, vm...)
	}
	slices.Sort(all)
	e := c.level(j)
	// The refinements read the rate alone: no verdict on their trials
	// (with Verdicts set each drew its tests' nulls again — 399 actions
	// for the mass bound, more for the evidence test — and scored them).
	e.Progress, e.Verdicts, e.verdicts, e.noEMD = nil, false, nil, true
	added := 0
	rate := func(m float64) (float64, error) {
		// The shared pool's first trials at mass m (linear in the mass:
		// m·a + σ·z, no action drawn again).
		pool, err := c.sharedPool(e)
		if err != nil {
			return 0, err
		}
		e.SourceMass, e.Seed, e.Pool = m/float64(max(e.Sources, 1)), pool.seed, pool
		e.Progress = c.refinementProgress(added)
		added++
		res, err := Simulate(ctx, e)
		if err != nil {
			return 0, err
		}
		out.beyond += res.Trials
		return res.CommunityAccuracy, nil
	}
	vc, err := verdictCurve(out.Points, all, out.Unit.Guess(), rounds, rate)
	if err != nil {
		return nil, err
	}
	out.verdictCurve = vc
	rateOf := func(vm []float64) float64 { return VerdictRateOf(vm, vc, out.Unit.Guess(), rounds) }
	if len(all) == 0 || base.Missing != 0 || base.Reported != nil || !(out.Unit.Sigma > 0) {
		return rateOf, nil
	}
	le := locateSimulation(base, out.Unit.Sigma, c.seed, rounds)
	if base.Graph.N() > expm.DefaultDenseLimit || base.Trials == rounds {
		// Locate's own forecast draws the shared pool's trials: the same
		// seed, and the same action (its method chosen by the column
		// count only up to the dense limit).
		if le.Pool, err = c.sharedPool(e); err != nil {
			return nil, err
		}
	}
	step, ok, err := locateStep(ctx, le, vc, out.Unit.Guess(), all, c.stepProgress(j))
	if err != nil || !ok {
		return rateOf, err
	}
	out.LocateStep = step
	return func(vm []float64) float64 { return StepRateOf(vm, step) }, nil
}

// stepProgress counts locate's step's forecast runs on curve j (their
// trials beyond the grid's) and reports them on the run's bar, in curve
// j's slot of stepTrials after the refinements'.
func (c *curveRun) stepProgress(j int) func(trials int) {
	s := c.bar.slot(c.stepSlot, 0)
	return func(trials int) {
		c.out[j].beyond += trials
		s.add(trials)
	}
}

// refinementProgress reports a curve's k-th refinement mass's trials on
// the run's bar.
func (c *curveRun) refinementProgress(k int) func(done, total int) {
	if k >= refineMax { // past the refinements foreseen
		c.bar.grown(c.per)
	}
	s := c.bar.slot(c.per, 0)
	return func(done, _ int) { s.to(done) }
}

// verdictRoundTrials is the trials of a round of locate's forecast that
// e's verdict rates assume (Simulation.VerdictRoundTrials).
func verdictRoundTrials(e Simulation) int {
	if e.VerdictRoundTrials == 0 {
		return e.Trials
	}
	return e.VerdictRoundTrials
}

// sureAfter is the count of masses in a row answered ≥ 99% of the time
// after f, the count before it being sure.
func sureAfter(f *Forecast, sure int) int {
	if !f.AtChance && f.CommunityAccuracy >= 0.99 {
		return sure + 1
	}
	return 0
}

// Resolves says whether a release whose forecast by source mass resolves
// from resolvable units on (MassCurve; 0: none) answers sources of mass
// m: the verdict a plan's row (m = 1, unit sources) takes from the curve.
func Resolves(resolvable, m float64) bool { return resolvable > 0 && m >= resolvable }

// forecastMassPoint is MassCurve's forecast at mass m (its pool's seed,
// e.Seed).
func forecastMassPoint(ctx context.Context, e Simulation, m float64) (*Forecast, error) {
	return AtMass(ctx, e, GivenMass(m, ""))
}

// AtMaxMass is MassCurve's point at MaxMass, simulated alone: the
// rate grows with the mass, so a release at chance there is at chance at
// every mass of the grid (MassCurve resolves none) — what a release
// without a stated source mass is refused on (--refuse-at-chance).
func AtMaxMass(ctx context.Context, e Simulation) (*Forecast, error) {
	return forecastMassPoint(ctx, e, MaxMass)
}

// ResolvableMass is the smallest mass of a curve from which on every
// point is an answer (0: the largest is at chance).
func ResolvableMass(curve []MassPoint) float64 {
	r := 0.0
	for i := len(curve) - 1; i >= 0 && !curve[i].AtChance; i-- {
		r = curve[i].Mass
	}
	return r
}

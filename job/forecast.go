package job

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	graphcloak "github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// Forecasts are what a dry run shows before ε is spent: how often a
// per-node release with σ names the right community (of the partition the
// user names, ReleaseSpec.Communities, else as locate detects them by
// default: Leiden), and how often the private answer at the same ε would,
// with the dry run's verdict on the per-node release.
type Forecasts struct {
	// PerNode simulates sources of the stated mass (ReleaseSpec.SourceMass)
	// or, when none is stated, unit sources; its MassCurve is the forecast
	// at every mass of forecast.MassGrid.
	PerNode *forecast.Forecast `json:"perNode"`
	Answer  *forecast.Forecast `json:"privateAnswer"`
	// Communities names the partition both score (ReleaseSpec.Communities:
	// the user's, else "leiden").
	Communities string `json:"communities"`
	// Verdict is the dry run's verdict on the per-node release, the one
	// --refuse-at-chance refuses on.
	Verdict *ReleaseVerdict `json:"verdict,omitempty"`
}

// ReleaseVerdict is a dry run's verdict on a per-node release, from public
// inputs only (the graph, τ, ε, δ, σ, a seeded simulation and a source
// mass the operator states), never from the readings: a refusal decided
// on the readings would tell something about them by the act of refusing.
//
// With a stated source mass (ReleaseSpec.SourceMass, --source-mass) it is
// the forecast at that mass: noise (AtChance) when releases carrying it
// cannot be told from a guess. Without one, locate's verdict on the
// release will depend on the mass its readings carry, which the dry run
// does not read: the verdict is then the forecast by source mass —
// AtChance only when it resolves no mass up to forecast.MaxMass (the
// release answers noise whatever the readings hold), otherwise the
// smallest mass it resolves (ResolvableMass), below which locate will
// call the release noise. docs/guarantee.md, "The dry run's verdict".
type ReleaseVerdict struct {
	// SourceMass is the stated total source mass (0: none stated).
	SourceMass float64 `json:"sourceMass,omitempty"`
	// AtChance: the per-node release would answer noise — at the stated
	// mass, or (none stated) at every mass up to MaxMass.
	AtChance bool `json:"atChance"`
	// ResolvableMass is the smallest mass the forecast by source mass
	// resolves (0: none up to MaxMass, or not computed).
	ResolvableMass float64 `json:"resolvableMass,omitempty"`
	// MaxMass is the largest mass judged (forecast.MaxMass).
	MaxMass float64 `json:"maxMass"`
	// Reason says the verdict and why, in words.
	Reason string `json:"reason"`
	// basis is the forecast that decided a verdict at chance: at the
	// stated mass, or at MaxMass.
	basis *forecast.Forecast
}

// forecast simulates trials sources on graph at τ with the release's σ
// (of the stated mass, or unit sources), and the private answer at ε.
// Each forecast stops starting trials after 5% of the release's modelled
// time (at least 2 s, and at least 20 trials), so both cost about a tenth
// of the release. Simulated data only: its seeded streams never draw
// released noise.
func (p *ReleasePlan) forecast(ctx context.Context, graph *laplacian.Graph, sigma, releaseSeconds float64) (*Forecasts, error) {
	s := &p.Spec
	e, err := p.forecastGraph(graph, sigma, releaseSeconds)
	if err != nil {
		return nil, err
	}
	graph, part := e.Graph, e.Partition
	var first func(float64, int)
	if p.env.Say != nil && p.Spec.DryRun {
		first = p.sayForecastEstimate(graph, part, releaseSeconds)
	}
	// The private answer's trials and the verdict's rounds: one step. The
	// answer goes first: its trials read noiseless readings (σ plays no
	// part) and cost the most and the most variably — several per-node
	// trials each where the plain recovery misses and the operator scores
	// its candidates again (0.8–8.6 on the graphs measured) — so its first
	// trials are what the dry run's estimate is timed on.
	report, end := roundsProgress(e.Progress, forecast.VerdictRounds+1, e.Trials, first)
	e.Progress = report
	ae := e
	ae.Sigma = 0
	a, err := forecast.SimulateAnswer(ctx, forecast.AnswerSimulation{Graph: &ae, Epsilon: s.Epsilon, Alpha: s.Alpha})
	if err != nil {
		return nil, err
	}
	var pn forecast.Forecast
	start := time.Now()
	if s.SourceMass > 0 {
		// As locate --source-mass forecasts its verdict.
		f, err := forecast.AtMass(ctx, e, forecast.GivenMass(s.SourceMass, string(ParamSourceMass)))
		if err != nil {
			return nil, err
		}
		pn = *f
	} else if pn, err = forecast.PerNode(ctx, withVerdicts(e)); err != nil {
		return nil, err
	}
	p.unitForecast = time.Since(start)
	end()
	if s.SourceMass == 0 {
		unit := pn
		p.unitPoint = &unit // the forecast by source mass's 1-unit point
	}
	pn.Epsilon, pn.Delta = s.Epsilon, s.Delta
	// The ceiling plan prints for this ε and δ, by its one code path
	// (RoutedCeiling: the star bound tightened by routing, seconds on 10⁴
	// nodes); the star bound alone printed 0.767 where plan said 0.712.
	if pn.Ceiling, err = forecast.RoutedCeiling(ctx, graph, part, s.Epsilon, s.Delta); err != nil {
		return nil, err
	}
	an := forecast.OfAnswer(a)
	an.Delta, an.Ceiling = s.Delta, pn.Ceiling
	comms := s.Communities
	if comms == "" {
		comms = "leiden"
	}
	return &Forecasts{PerNode: &pn, Answer: &an, Communities: comms}, nil
}

// forecastGraph is the simulation the dry run's forecasts run: unit
// sources on graph in key order (any input order, one forecast), the
// release's τ, σ and estimator, in rounds as locate's noise verdict takes
// them (at most VerdictRounds), 5% of the release's modelled time (at
// least 2 s) shared among them.
func (p *ReleasePlan) forecastGraph(graph *laplacian.Graph, sigma, releaseSeconds float64) (forecast.Simulation, error) {
	s := &p.Spec
	tau, trials := s.Tau+s.Smooth, s.ForecastTrials
	budget := cost.ForecastBudget(releaseSeconds)
	graph, part, err := p.forecastPartition(graph)
	if err != nil {
		return forecast.Simulation{}, err
	}
	return forecast.Simulation{Graph: graph, Partition: part, Tau: tau, Sigma: sigma, Alpha: s.Alpha, Delta: s.Delta, Sources: 1,
		Trials: trials, Estimator: s.Estimator, Seed: s.ForecastSeed, Progress: p.env.progress("forecast trials"),
		TimeBudget: budget / forecast.VerdictRounds, MinTrials: min(20, trials)}, nil
}

// roundsProgress reports a forecast run in rounds of up to trials trials
// each (forecast.PerNode's, then for a dry run the private answer's: a
// simulation each, whose count restarts) as one step of rounds·trials:
// round r's count is offset by r·trials, and the step reaches its total
// only when end is called (the rounds a verdict takes are not known
// before), so that a progress log goes on through every round instead of
// ending with the first. firstTrials, when set, is told once the time a
// trial took so far (cost.TrialSeconds) once two trials a worker after the
// first have finished in the first round, or all of its trials.
func roundsProgress(progress func(done, total int), rounds, trials int, firstTrials func(perTrial float64, timed int)) (report func(done, total int), end func()) {
	var mu sync.Mutex
	start, round, last, told := time.Now(), 0, 0, firstTrials == nil
	var first float64 // when the first trial finished
	workers := max(1, runtime.GOMAXPROCS(0))
	total := max(1, rounds*trials)
	report = func(done, n int) {
		mu.Lock()
		if done < last {
			round++
		}
		last = done
		now := time.Since(start).Seconds()
		if first == 0 && done > 0 {
			first = now
		}
		// Two trials a worker after the first (their pace), or all.
		tell := !told && round == 0 && done > 0 && done >= min(2*workers+1, n)
		told = told || tell
		off := min(round, rounds-1) * trials
		mu.Unlock()
		if tell {
			firstTrials(cost.TrialSeconds(first, now, done, n), done)
		}
		if progress != nil {
			progress(min(off+done, total-1), total)
		}
	}
	end = func() {
		if progress != nil {
			progress(total, total)
		}
	}
	return report, end
}

// monotone passes on progress that never goes back: the forecast by
// source mass counts a point's rounds from its start again (a count of
// 11/900 then 5/900 made an ETA of 1 h 46 min on lfr20k).
func monotone(progress func(done, total int)) func(done, total int) {
	if progress == nil {
		return nil
	}
	var mu sync.Mutex
	most := 0
	return func(done, total int) {
		mu.Lock()
		most = max(most, done)
		d := most
		mu.Unlock()
		progress(d, total)
	}
}

// sayForecastEstimate is the firstTrials of the dry run's first forecast
// (the private answer's): once its first trials are timed it tells
// (env.Say) the modelled time of the whole dry run again, when over LongStep
// — the time so far (since p.began) and the forecasts (dryRunSteps) at
// the answer's measured time a trial, the per-node trials priced by this
// machine's step rate (cost.PerNodeTrialSeconds).
func (p *ReleasePlan) sayForecastEstimate(g *laplacian.Graph, part []int, releaseSeconds float64) func(perTrial float64, timed int) {
	return func(pa float64, timed int) {
		_, _, per, how, ok := p.pricing(g)
		if !ok {
			per, how = pa, "the answer's"
		}
		p.sayDryRun(0, p.dryRunSteps(g, part, per, pa, releaseSeconds),
			fmt.Sprintf("the answer's trials at %.3g s, the first %d; per-node trials at %.3g s, %s", pa, timed, per, how))
	}
}

// sayDryRunEstimate is the dry run's first estimate, told (env.Say) once
// Δ2's method is modelled (est) and before anything long runs: the time
// so far, Δ2 when the dry run computes it (modelled under 10 s), and the
// forecasts (dryRunSteps) with the per-node trials priced by this
// machine's step rate and the answer's at cost.AnswerTrialFactor of them. On
// graphs whose action is dense (small) nothing: their forecasts are quick.
func (p *ReleasePlan) sayDryRunEstimate(g *laplacian.Graph, est *graphcloak.ReleaseEstimate, delta2 float64) {
	graph, part, per, how, ok := p.pricing(g)
	if !ok {
		return
	}
	p.sayDryRun(delta2, p.dryRunSteps(graph, part, per, cost.AnswerTrialFactor*per, est.SecondsEstimate),
		fmt.Sprintf("per-node trials at %.3g s, %s; the answer's at %d×", per, how, cost.AnswerTrialFactor))
}

// pricing is what a dry run's estimates price its forecasts on: the
// forecast graph and partition (forecastPartition) and a per-node trial's
// time (cost.PerNodeTrialSeconds, its step rate measured once a dry run); ok is
// false where there is no price (no partition, or a dense action: small
// graphs, quick forecasts).
func (p *ReleasePlan) pricing(g *laplacian.Graph) (graph *laplacian.Graph, part []int, per float64, how string, ok bool) {
	graph, part, err := p.forecastPartition(g)
	if err != nil {
		return nil, nil, 0, "", false // the forecast reports it
	}
	if !p.priced {
		p.priced = true
		p.perTrial, p.perTrialHow = cost.PerNodeTrialSeconds(graph, p.Spec.Tau+p.Spec.Smooth, p.Spec.ForecastTrials, 0)
	}
	return graph, part, p.perTrial, p.perTrialHow, p.perTrial > 0
}

// holdDryRunGuess is the dry run's first estimate on a graph of at least
// guessNodes nodes (dryRunGuess), made before Δ2's method is modelled
// (which takes seconds there: its bounds on every edge and its pilot) and
// told (env.Say) cost.GuessDeadline after the dry run began — unless drop is
// called first: the model's own estimate (sayDryRunEstimate), which knows
// which scheme Δ2 takes, is then the first (LFR 2·10⁴: 40 s at 1.3 s for
// a 58 s dry run, where the guess said 32 s).
func (p *ReleasePlan) holdDryRunGuess(g *laplacian.Graph) (drop func()) {
	return cost.HoldLine(p.env.Say, p.began.Add(cost.GuessDeadline), p.dryRunGuess(g))
}

// dryRunGuess is the dry run's guess at its time (holdDryRunGuess): the
// modelling and Δ2 guessed (sensitivity.GuessFirst; where Δ2's time is not
// modelled without the pilot, the middle of what a dry run computes,
// cost.DryRunDelta2Guess) and the forecasts as sayDryRunEstimate prices them;
// "" below guessNodes nodes, without a price, or when not over LongStep.
func (p *ReleasePlan) dryRunGuess(g *laplacian.Graph) string {
	if g.N() < guessNodes {
		return ""
	}
	guess := sensitivity.GuessFirst(g, p.Spec.Tau+p.Spec.Smooth, sensitivity.Options{TimeBudget: p.Spec.TimeBudget})
	graph, part, per, how, ok := p.pricing(g)
	if !ok {
		return ""
	}
	how = fmt.Sprintf("Δ2's method modelled in about %s; per-node trials at %.3g s, %s; the answer's at %d×",
		human(guess.ModelSeconds), per, how, cost.AnswerTrialFactor)
	steps := func(release float64) []cost.Step {
		return p.dryRunSteps(graph, part, per, cost.AnswerTrialFactor*per, release)
	}
	switch {
	case guess.Modelled && guess.Seconds < 10: // dense: computed, its time known
		return p.dryRunLine(guess.ModelSeconds+guess.Seconds, steps(guess.Seconds), how)
	case guess.Modelled:
		// Δ2's model picks the Gram scheme (not computed by the dry run,
		// its time sets the forecasts' budget) or the per-edge one (whose
		// time needs the pilot: as below, at the floor of the budget).
		// Between them, the geometric middle.
		_, lo, _ := p.dryRunTotal(guess.ModelSeconds+cost.DryRunDelta2Guess(g.NumEdges()), steps(0))
		so, hi, _ := p.dryRunTotal(guess.ModelSeconds, steps(guess.Seconds))
		if mid := math.Sqrt(lo * hi); mid > LongStep.Seconds() {
			return fmt.Sprintf("estimated %s for the dry run (%s so far; %s if Δ2's model picks the per-edge scheme, %s if the Gram scheme's %s, whose time sets the forecasts' budget; %s)",
				human(mid), human(so), human(lo), human(hi), human(guess.Seconds), how)
		}
		return ""
	}
	return p.dryRunLine(guess.ModelSeconds+cost.DryRunDelta2Guess(g.NumEdges()), steps(0), how)
}

// human renders seconds for a reader (answer.HumanDuration).
func human(s float64) string { return answer.HumanDuration(time.Duration(s * float64(time.Second))) }

// guessNodes is the size from which a release, its dry run and a
// localisation tell their estimates (cost.LineNodes).
const guessNodes = cost.LineNodes

// dryRunSteps are a dry run's forecasts (cost.DryRunForecastsOn) on the forecast
// graph and partition part, the private answer's calibrated on them.
func (p *ReleasePlan) dryRunSteps(graph *laplacian.Graph, part []int, per, pa, releaseSeconds float64) []cost.Step {
	return cost.DryRunForecastsOn(graph, part, p.Spec.ForecastTrials, per, pa, releaseSeconds, p.Spec.SourceMass > 0)
}

// sayDryRun tells the modelled time of the whole dry run, when over
// LongStep: the time so far, delta2 (Δ2 still to compute), the steps; how says
// what the steps were priced at.
func (p *ReleasePlan) sayDryRun(delta2 float64, steps []cost.Step, how string) {
	if line := p.dryRunLine(delta2, steps, how); line != "" {
		p.env.Say(line)
	}
}

// dryRunLine is sayDryRun's line, "" when the total is not over LongStep.
func (p *ReleasePlan) dryRunLine(delta2 float64, steps []cost.Step, how string) string {
	if so, total, line := p.dryRunTotal(delta2, steps); total > LongStep.Seconds() {
		return fmt.Sprintf("estimated %s for the dry run (%s so far%s; %s)", human(total), human(so), line, how)
	}
	return ""
}

// dryRunTotal is the modelled time of the whole dry run — the time so far
// (since p.began), delta2 and steps — and the line naming them.
func (p *ReleasePlan) dryRunTotal(delta2 float64, steps []cost.Step) (so, total float64, line string) {
	so = time.Since(p.began).Seconds()
	total = so + delta2
	if delta2 > 0 {
		line = ", Δ2 " + human(delta2)
	}
	for _, st := range steps {
		total += st.Seconds
		line += ", " + st.Step + " " + human(st.Seconds)
	}
	return so, total, line
}

// massCurve puts into the dry run's per-node forecast the forecast at
// each source mass (forecast.MassCurve): what mass a release at this ε
// can resolve. A locate's verdict on the release simulates the mass its
// readings carry, so this is the verdict's forecast before the release.
// Then it states the dry run's verdict (judge).
func (p *ReleasePlan) massCurve(ctx context.Context, graph *laplacian.Graph, sigma, releaseSeconds float64, fs *Forecasts) error {
	e, err := p.forecastGraph(graph, sigma, releaseSeconds)
	if err != nil {
		return err
	}
	masses := cost.MassPoints(p.Spec.SourceMass > 0)
	if d := float64(masses) * p.unitForecast.Seconds(); p.env.Say != nil && d > LongStep.Seconds() {
		p.env.Say(fmt.Sprintf("estimated up to %s for the forecast by source mass (%d masses at the unit forecast's %s each; masses answered ≥ 99%% twice in a row end it)",
			human(d), masses, p.unitForecast.Round(time.Second)))
	}
	e.Progress = monotone(p.env.progress("forecast by source mass"))
	f := fs.PerNode
	curve, resolvable, err := forecast.MassCurveWithUnit(ctx, e, p.unitPoint)
	if err != nil {
		return err
	}
	f.SetMassCurve(curve, resolvable)
	if p.Spec.SourceMass == 0 {
		// The unit-source forecast is the curve's 1-unit point.
		f.AtChance = !forecast.Resolves(f.ResolvableMass, 1)
	}
	var top *forecast.Forecast
	if n := len(f.MassCurve); n > 0 && f.ResolvableMass == 0 {
		// At chance at MaxMass, so at every mass (the curve's last point).
		m := f.MassCurve[n-1]
		top = &forecast.Forecast{CommunityAccuracy: m.CommunityAccuracy, Low: m.Low, High: m.High, Chance: f.Chance, PriorRate: f.PriorRate,
			SourceMass: m.Mass, AtChance: true}
	}
	fs.Verdict = p.judge(f, top)
	return nil
}

// judge states the dry run's verdict (ReleaseVerdict) on the per-node
// forecast f: at the stated mass when there is one (f simulated it);
// otherwise from top, the forecast at MaxMass (nil: f's forecast by
// source mass decides — resolving some mass, else top is given).
func (p *ReleasePlan) judge(f, top *forecast.Forecast) *ReleaseVerdict {
	v := &ReleaseVerdict{SourceMass: p.Spec.SourceMass, MaxMass: forecast.MaxMass, ResolvableMass: f.ResolvableMass}
	guess := fmt.Sprintf("a guess (%.3f: chance %.4f, the largest community %.3f)", f.Guess(), f.Chance, f.PriorRate)
	switch {
	case v.SourceMass > 0 && f.AtChance:
		v.AtChance, v.basis = true, f
		v.Reason = fmt.Sprintf("noise: releases with a source of %s (stated) would put its community first %.3f [%.3f, %.3f] of the time (%d simulated), which cannot be told from %s",
			forecast.Units(v.SourceMass), f.CommunityAccuracy, f.Low, f.High, f.Trials, guess)
	case v.SourceMass > 0:
		v.Reason = fmt.Sprintf("%s: releases with a source of %s (stated) would put its community first %.3f [%.3f, %.3f] of the time (%d simulated) against %s",
			forecast.AnswerLabel(f), forecast.Units(v.SourceMass), f.CommunityAccuracy, f.Low, f.High, f.Trials, guess)
	case top != nil && top.AtChance:
		v.AtChance, v.basis = true, top
		v.Reason = fmt.Sprintf("noise whatever the readings hold: releases like this one cannot be told from %s at any source mass up to %g units (at %g units %.3f [%.3f, %.3f])",
			guess, forecast.MaxMass, top.SourceMass, top.CommunityAccuracy, top.Low, top.High)
	case v.ResolvableMass > 0:
		v.Reason = fmt.Sprintf("depends on the source mass: releases like this one name the right community more often than %s for sources of %g units or more, "+
			"and are noise below: locate's verdict reads the mass off the release", guess, v.ResolvableMass)
	case top != nil:
		v.Reason = fmt.Sprintf("depends on the source mass: releases like this one with sources of %g units name the right community %.3f [%.3f, %.3f] of the time "+
			"against %s (the dry run shows the smallest mass they resolve)", top.SourceMass, top.CommunityAccuracy, top.Low, top.High, guess)
	default:
		v.Reason = "depends on the source mass (no forecast by source mass was computed)"
	}
	return v
}

// AtChanceError refuses a release (ReleaseSpec.RefuseAtChance) whose
// verdict (ReleaseVerdict) is noise: at the stated source mass, or at
// every mass up to forecast.MaxMass when none is stated. Nothing was
// charged or drawn. It carries both forecasts, so the caller can point at
// the private answer when that one is useful.
type AtChanceError struct {
	Epsilon   float64
	Forecasts *Forecasts
}

func (e *AtChanceError) Error() string {
	return e.RenderText(func(p errkind.Param) string { return string(p) })
}

// RenderText is its text naming parameters as name does.
func (e *AtChanceError) RenderText(name func(errkind.Param) string) string {
	v := e.Forecasts.Verdict
	f := v.basis
	var msg string
	if v.SourceMass > 0 {
		msg = fmt.Sprintf("release refused (%s), nothing charged: at ε = %g the per-node release with a source of %s (%s) is forecast to put the "+
			"source's community first %.3f [%.3f, %.3f] of the time, which cannot be told from chance (%.4f; the largest community %.4f)",
			name(ParamRefuseAtChance), e.Epsilon, forecast.Units(v.SourceMass), name(ParamSourceMass), f.CommunityAccuracy, f.Low, f.High, f.Chance, f.PriorRate)
	} else {
		msg = fmt.Sprintf("release refused (%s), nothing charged: at ε = %g the per-node release cannot be told from chance (%.4f; the largest community %.4f) "+
			"at any source mass up to %g units — at %g units it is forecast to put the source's community first %.3f [%.3f, %.3f] of the time",
			name(ParamRefuseAtChance), e.Epsilon, f.Chance, f.PriorRate, v.MaxMass, f.SourceMass, f.CommunityAccuracy, f.Low, f.High)
	}
	if a := e.Forecasts.Answer; a != nil && !a.AtChance {
		msg += fmt.Sprintf("; a private answer at the same ε is forecast right %.3f [%.3f, %.3f] (%s)", a.CommunityAccuracy, a.Low, a.High, name(ParamPrivateAnswer))
	}
	return msg + "; see graphcloak plan for the ε it would take"
}

// Kind: the request, not the system, is at fault (bad input).
func (*AtChanceError) Kind() errkind.Kind { return errkind.BadInput }

// refuseAtChance is the release's Check when ReleaseSpec.RefuseAtChance is
// set: it forecasts the release at the calibrated σ as the dry run does
// (its time budget the dry run's minimum) and refuses one whose verdict is
// noise — at the stated source mass, or, with none stated, at
// forecast.MaxMass (the rate grows with the mass: at chance there, at
// chance at every mass, as the dry run's curve says). The decision reads
// public inputs only, never the readings. The forecast is kept in the
// summary either way.
func (p *ReleasePlan) refuseAtChance(ctx context.Context, cal privacy.ReleaseCalibration) error {
	s := &p.Spec
	if s.ForecastTrials <= 0 || p.Input.Graph.NumEdges() == 0 {
		return nil
	}
	f, err := p.forecast(ctx, p.Input.Graph, cal.Sigma, 0)
	if err != nil {
		return err
	}
	p.Summary.Forecast = f
	var top *forecast.Forecast
	if s.SourceMass == 0 {
		e, err := p.forecastGraph(p.Input.Graph, cal.Sigma, 0)
		if err != nil {
			return err
		}
		if top, err = forecast.AtMaxMass(ctx, e); err != nil {
			return err
		}
	}
	if f.Verdict = p.judge(f.PerNode, top); f.Verdict.AtChance {
		return &AtChanceError{Epsilon: s.Epsilon, Forecasts: f}
	}
	return nil
}

// withVerdicts is e forecasting locate's verdict on every trial: the
// unit forecast is the curve by source mass's 1-unit point, whose verdict
// rate the curve reads.
func withVerdicts(e forecast.Simulation) forecast.Simulation {
	e.Verdicts = true
	return e
}

package cost

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// PlanWork is what a plan will run (job.ForecastSpec) as its cost model
// reads it.
type PlanWork struct {
	// GraphName names the graph for the estimate ("gt:email-Enron").
	GraphName string
	// Simulation is the plan's: its graph, partition (nil: none, so no
	// audit and no calibrations), τ, trials, α, estimator and seed.
	Simulation forecast.Simulation
	Epsilons   []float64
	// Smooth are the τ′ of the smoothed per-node releases (τ + τ′ each).
	Smooth []float64
	// Modes are the modes forecast (forecast.ModePerNode,
	// forecast.ModeAnswer).
	Modes []string
	// TimeBudget bounds Δ2 (sensitivity.Options.TimeBudget).
	TimeBudget time.Duration
	// FitTolerance and SensorNoise are the answer audit's pass's
	// (recovery.CertifierOptions' Tol and SensorNoise).
	FitTolerance, SensorNoise float64
	// Held is what the plan's caches hold (priced at 0 s).
	Held Held
	// delta2Step is Δ2 at τ as known before the plan runs — the store's —
	// that the per-node forecasts' curves are foreseen at (0: not held:
	// Plan bounds it within priorDelta2Budget, priorDelta2).
	Delta2 float64
	// Timed times the per-node forecasts' trials on the graph (plan
	// --estimate); otherwise, and when timing them runs past
	// trialTiming, they are priced at this machine's step rate
	// (pricePool: the plan's first line, which must come within seconds).
	Timed bool
	// Each, when set, is told each step as soon as it is modelled.
	Each func(Step)
	// Name names the parameters the models mention (nil: "--" and theirs).
	Name Names

	perNodeMode, answerMode bool // Modes, read by Plan
}

// Held is what a plan's caches hold of its work before it runs
// (job.ForecastSpec.Held): Δ2 at τ, the answer's certificate, and per
// mode the ε whose rows are kept (under forecast.CeilingMode those whose
// routed ceiling is).
type Held struct {
	Delta2, AnswerModel bool
	// Calibrated is the ε whose answer calibrations are kept beside the
	// certificate (their audits over every edge were kept with them).
	Calibrated []float64
	Rows       map[string][]float64
	// MassNull: the per-node forecasts' mass null quantile at τ is kept
	// beside their rows (its draws are not priced); Trials: their pool of
	// trials at τ is (its draws are not priced).
	MassNull, Trials bool
}

// PlanEstimate is a plan's modelled steps (plan --estimate and the plan's
// first line).
type PlanEstimate struct {
	Graph     string  `json:"graph"`
	NodeCount int     `json:"nodeCount"`
	Edges     int     `json:"relationships"`
	Tau       float64 `json:"tau"`
	Steps     []Step  `json:"steps"`
	// Seconds is the sum of the modelled steps; Simulations the
	// simulated releases the plan runs at most (priced by a few timed
	// trials when they finish within trialTiming).
	Seconds     float64 `json:"seconds"`
	Simulations int     `json:"simulations"`
	Millis      int64   `json:"computeMillis"`
}

// SimulationsModelled says whether the simulated releases are priced.
func (e PlanEstimate) SimulationsModelled() bool {
	return slices.ContainsFunc(e.Steps, func(s Step) bool {
		return s.Step == "per-node forecasts" || s.Step == "private-answer trials"
	})
}

// AuditEstimate is the answer audit's model among the steps (nil: none,
// or reused): the one the pass's own line prints (PassLine).
func (e PlanEstimate) AuditEstimate() *answer.WorkEstimate {
	for _, s := range e.Steps {
		if s.Audit != nil {
			return s.Audit
		}
	}
	return nil
}

// PassDelta2Seconds is what Δ2 from the answer audit's pass is priced
// at: the Lanczos refinement of the few edges its brackets leave near the
// top (LFR 2·10⁴ at τ = 1: under a second, docs/results.md).
const PassDelta2Seconds = 1

// Plan models a plan's long steps on its graph: Δ2 at τ (and τ+τ′ per
// Smooth) by the sensitivity package's cost model (priced on the 2-core
// reference machine), the answer audit's pass by its cost model at the
// step rate measured on the graph, and the simulated releases by a few
// trials timed on the graph (or priced, w.Timed) — each at 0 s where the
// caches hold it (w.Held: the ε whose rows are kept are not priced).
// Modelled quickest first (the audit's rate in about 0.3 s, Δ2's pilot in
// seconds, the trials last), each told (w.Each) as it is known; listed in
// the plan's order: the audit's pass runs first.
func Plan(w PlanWork) (PlanEstimate, error) {
	start := time.Now()
	w.perNodeMode, w.answerMode = slices.Contains(w.Modes, forecast.ModePerNode), slices.Contains(w.Modes, forecast.ModeAnswer)
	gr := w.Simulation.Graph
	if w.Each == nil {
		w.Each = func(Step) {}
	}
	e := PlanEstimate{Graph: w.GraphName, NodeCount: gr.N(), Edges: gr.NumEdges(), Tau: w.Simulation.Tau}
	var audit []Step
	step := 0.0 // the step rate the audit measured: the trials' price too
	if w.answerMode {
		st, err := w.audit()
		if err != nil {
			return PlanEstimate{}, err
		}
		if a := st.Audit; a != nil && a.MeasureMillis > 0 {
			step = a.NanosPerStep * 1e-9
		}
		audit = append(audit, st)
	}
	if w.perNodeMode {
		e.Steps = append(e.Steps, w.delta2()...)
		st, n := w.perNode(step)
		e.Simulations += n
		e.Steps = append(e.Steps, st...)
	}
	ceilings := w.countCeilings() // beside the calibrations' model: each a core's
	if w.auditsAnswers() {
		audit = append(audit, w.calibrations()) // the audits' rows before the sweep
	}
	e.Steps = append(e.Steps, w.ceilings(ceilings)...)
	st, n := w.answerTrials()
	e.Simulations += n
	e.Steps = append(audit, append(e.Steps, st...)...)
	for _, s := range e.Steps {
		e.Seconds += s.Seconds
	}
	e.Millis = time.Since(start).Milliseconds()
	return e, nil
}

// told tells st (w.Each) and returns it.
func (w PlanWork) told(st Step) Step {
	w.Each(st)
	return st
}

// auditsAnswers: the plan audits the private answer (it has a partition).
func (w PlanWork) auditsAnswers() bool { return w.answerMode && w.Simulation.Partition != nil }

// audit is the answer audit's step: reused, or its model (auditModel).
func (w PlanWork) audit() (Step, error) {
	if w.Held.AnswerModel {
		return w.told(Step{Step: "answer audit", Model: fmt.Sprintf("reused from the store: the certificate kept (%s, or the store %s) verifies", w.Name.of(ParamAnswerCache), w.Name.of(ParamCacheDir))}), nil
	}
	// The plan's pass keeps every edge's correlations for Δ2 (job's
	// EdgeTerms): each row is correlated, none skipped.
	opt := recovery.CertifierOptions{Tol: w.FitTolerance, SensorNoise: w.SensorNoise, EdgeTerms: &recovery.EdgeTerms{}}
	st, err := auditModel(w.Simulation.Graph, w.Simulation.Tau, opt)
	if err != nil {
		return Step{}, err
	}
	return w.told(st), nil
}

// delta2 are Δ2's steps at τ and each τ+τ′: reused, from the audit's pass
// (which runs first and brackets every edge's term: Δ2 refines the few
// near the top; the full scheme only where the brackets are too wide), or
// its own scheme's model (delta2Step).
func (w PlanWork) delta2() []Step {
	gr, tau := w.Simulation.Graph, w.Simulation.Tau
	taus := []float64{tau}
	for _, sm := range w.Smooth {
		taus = append(taus, tau+sm)
	}
	var steps []Step
	for i, t := range taus {
		var st Step
		switch {
		case i == 0 && w.Held.Delta2:
			st = Step{Step: fmt.Sprintf("Δ2 at τ = %g", t), Model: "reused: the certificate kept in " + w.Name.of(ParamCacheDir) + " verifies"}
		case i == 0 && w.auditsAnswers() && !w.Held.AnswerModel:
			st = Step{Step: fmt.Sprintf("Δ2 at τ = %g", t), Seconds: PassDelta2Seconds,
				Model: "from the answer audit's pass: its brackets of every edge's term, the edges near the top refined by Lanczos"}
		default:
			st = delta2Step(gr, t, sensitivity.Options{TimeBudget: w.TimeBudget}, w.Name)
		}
		steps = append(steps, w.told(st))
	}
	return steps
}

// perNode is the per-node forecasts' step (none where they are not
// priced) and the simulated releases they run at most: per level (ε not
// kept, and τ+τ′ per Smooth) every mass of the curve, each up to
// VerdictRounds rounds of trials. Priced, they are at step seconds a step
// when the audit measured it (one rate for one line: two measured 0.15 s
// apart under load differed 2–3×), else at a rate measured now — unless
// foreseen (curves, plan --estimate): the masses and rounds the curves will simulate at σ
// from Δ2 before the plan (w.Delta2, else a bound, priorDelta2), priced
// by the foresight's own pilot (its pool's models, a block drawn, its
// scorings timed). A curve stops after two masses answered ≥ 99% of the
// time (e-mail Enron: three of nine masses, one round each): priced at
// every mass, the first line said 5 min 31 s for 44 s.
func (w PlanWork) perNode(step float64) ([]Step, int) {
	kept := w.Held.Rows[forecast.ModePerNode]
	levels := len(w.Epsilons) - len(kept)
	trials := w.Simulation.Trials
	n := levels * (1 + len(w.Smooth)) * len(forecast.MassGrid()) * forecast.VerdictRounds * trials
	if levels == 0 {
		return []Step{w.told(Step{Step: "per-node forecasts", Model: "reused: every ε is kept in " + w.Name.of(ParamCacheDir)})}, n
	}
	var eps []float64
	for _, e := range w.Epsilons {
		if !slices.Contains(kept, e) {
			eps = append(eps, e)
		}
	}
	// Foreseen and timed by its pilot for plan --estimate only: the
	// pilot takes seconds to minutes (e-mail Enron: 27 s on 2 free cores),
	// and the first line must come within seconds.
	if w.Timed {
		if cw, ok := w.curves(eps); ok {
			return []Step{w.told(curveStep(1+len(w.Smooth), trials, cw))}, n
		}
	}
	sim := w.sampleSimulation()
	c, ok := poolCost{}, false
	if w.Timed {
		c, ok = timePool(sim)
	}
	if !ok { // not timed, or its trials ran past TrialTiming (a loaded machine): the step rate's price
		c, ok = pricePoolAt(sim, step)
	}
	if !ok {
		return nil, n
	}
	chance := chanceRounds(w.Simulation.Partition, trials)
	return []Step{w.told(poolStep(levels, 1+len(w.Smooth), trials, chance, c, w.Held))}, n
}

// curves foresees the per-node curves at eps (forecast.ForeseeMassCurves)
// at σ from w.Delta2 or, not held, priorDelta2's bound; ok is false where
// neither is had or the foresight failed or ran past curvesTiming.
func (w PlanWork) curves(eps []float64) (curveWork, bool) {
	sim := w.Simulation
	d2, how := w.Delta2, "Δ2 kept in the store"
	if !(d2 > 0) {
		d2 = priorDelta2(sim.Graph, sim.Tau, sim.Alpha)
		how = fmt.Sprintf("Δ2 ≤ %.4g, bounded within %s", d2, priorDelta2Budget)
	}
	if !(d2 > 0) {
		return curveWork{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), curvesTiming)
	defer cancel()
	sim.Sensitivity, sim.Sigma, sim.Progress = &sensitivity.Result{Delta2: d2}, 0, nil
	es := make([]forecast.Simulation, len(eps))
	for i, e := range eps {
		es[i] = sim
		es[i].Epsilon = e
	}
	cw, err := forecast.ForeseeMassCurves(ctx, es, sim.Seed)
	if err != nil {
		return curveWork{}, false
	}
	return curveWork{Work: cw, Levels: len(eps), How: how}, true
}

// sampleSimulation is the plan's simulation as its trials are timed or
// priced: no partition (scoring is not what is timed) and no σ (the
// sample's).
func (w PlanWork) sampleSimulation() forecast.Simulation {
	sim := w.Simulation
	sim.Partition, sim.Names, sim.Sigma, sim.Progress, sim.Missing = nil, nil, 0, nil, 0
	return sim
}

// calibrations is the answer's calibrations' step, one calibration and
// its audit over every edge per ε (job.Forecast's auditAnswers) not kept
// beside a certificate that verifies: privacy.CalibrationSeconds and
// privacy.AuditSeconds each.
func (w PlanWork) calibrations() Step {
	st := Step{Step: "answer calibrations", Model: "reused: kept beside the certificate (restored, their loss checked on every edge)"}
	var left []float64 // the ε to calibrate
	for _, eps := range w.Epsilons {
		if !w.Held.AnswerModel || !slices.Contains(w.Held.Calibrated, eps) {
			left = append(left, eps)
		}
	}
	if len(left) > 0 {
		g, part := w.Simulation.Graph, w.Simulation.Partition
		cal, audit := privacy.CalibrationSeconds(g, part, left...), privacy.AuditSeconds(g, part)
		st = Step{Step: st.Step, Seconds: cal + float64(len(left))*audit,
			Model: fmt.Sprintf("%d ε at %.3g s calibrating in all (the envelope's spreads and proposals, the caps' loss checks) and %.3g s auditing every edge each, modelled on the 2-core reference machine", len(left), cal, audit)}
	}
	return w.told(st)
}

// countCeilings starts counting the routed ceilings' work
// (forecast.CountCeilingWork, a core's tenth of a second at 3.7·10⁴
// nodes) where they are priced (a partition, an ε not kept) and returns
// its answer, waited for; nil where they are not.
func (w PlanWork) countCeilings() func() forecast.CeilingWork {
	part := w.Simulation.Partition
	if part == nil || len(w.Epsilons) <= len(w.Held.Rows[forecast.CeilingMode]) {
		return nil
	}
	done := make(chan forecast.CeilingWork, 1)
	go func() { done <- forecast.CountCeilingWork(w.Simulation.Graph, part) }()
	return sync.OnceValue(func() forecast.CeilingWork { return <-done })
}

// ceilings is the routed ceilings' step, one per ε not kept (none
// without a partition), of the work counted (countCeilings).
func (w PlanWork) ceilings(count func() forecast.CeilingWork) []Step {
	if count == nil {
		return nil
	}
	left := len(w.Epsilons) - len(w.Held.Rows[forecast.CeilingMode])
	work := count()
	per := work.Seconds
	return []Step{w.told(Step{Step: "routed ceilings", Seconds: float64(left) * per,
		Model: fmt.Sprintf("%d ε at %.3g s: %v, modelled on the 2-core reference machine", left, per, work.Model)})}
}

// answerTrials is the private answer's simulated trials' step and count.
// Its rows are its audit's where the audit passes (job.Forecast): its
// trials are simulated only where an audit fails, or without the audit
// (no partition, a τ the pass refuses), and are priced only when the
// audit does not run.
func (w PlanWork) answerTrials() ([]Step, int) {
	if !w.answerMode || w.auditsAnswers() || len(w.Held.Rows[forecast.ModeAnswer]) >= len(w.Epsilons) {
		return nil, 0
	}
	trials := w.Simulation.Trials
	c, ok := timeAnswerTrials(w.sampleSimulation(), w.Simulation.Alpha)
	if !ok {
		return nil, trials
	}
	return []Step{w.told(trialsStep("private-answer trials", trials, trials, c))}, trials
}

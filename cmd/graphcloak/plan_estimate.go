package main

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/graphcloak/graphcloak/stores"
)

// planEstimate is plan --estimate: what each long step of the plan is
// modelled to take, computing none of them.
type planEstimate struct {
	Graph     string         `json:"graph"`
	NodeCount int            `json:"nodeCount"`
	Edges     int            `json:"relationships"`
	Tau       float64        `json:"tau"`
	Steps     []estimateStep `json:"steps"`
	// Seconds is the sum of the modelled steps; Simulations the
	// simulated releases the plan runs at most (priced by a few timed
	// trials when they finish within 3 s).
	Seconds     float64 `json:"seconds"`
	Simulations int     `json:"simulations"`
	Millis      int64   `json:"computeMillis"`
}

// simulationsModelled says whether the simulated releases are priced.
func (e planEstimate) simulationsModelled() bool {
	return slices.ContainsFunc(e.Steps, func(s estimateStep) bool {
		return s.Step == "per-node forecasts" || s.Step == "private-answer trials"
	})
}

// estimatePlan models plan's long steps on the loaded graph: Δ2 at τ
// (and τ+τ′ per --smooth) by the sensitivity package's cost model
// (sensitivity --dry-run's, priced on the 2-core reference machine), the
// answer audit's pass by its cost model at the step rate measured on the
// graph, and the simulated releases by a few trials timed on the graph —
// each at 0 s where spec's caches (--answer-cache, --cache-dir) hold it
// (job.ForecastSpec.Held: the ε whose rows are kept are not priced). With
// timed false the per-node forecasts' trials are priced at the machine's
// step rate instead of timed (pricePool: the plan's line before it runs,
// which must come within seconds; timing them takes 0.6–1.6 s on graphs
// of 2–4·10⁴ nodes), and so they are too when their timing runs past
// trialTiming.
func estimatePlan(g *globalOptions, o *planOptions, lg *stores.Graph, spec job.ForecastSpec, timed bool, each func(estimateStep)) (planEstimate, error) {
	start := time.Now()
	held := spec.Held()
	gr, tau := lg.Graph, o.taus[0]
	e := planEstimate{Graph: o.graph, NodeCount: gr.N(), Edges: gr.NumEdges(), Tau: tau}
	perNode, privateAnswer := slices.Contains(o.modes, forecast.ModePerNode), slices.Contains(o.modes, forecast.ModeAnswer)
	part := spec.Simulation.Partition
	auditsAnswers := privateAnswer && part != nil
	k := len(community.Sizes(part)) // the calibrations' and ceilings' communities
	if each == nil {
		each = func(estimateStep) {}
	}
	// Modelled quickest first (the audit's rate in about 0.3 s, Δ2's
	// pilot in seconds, the trials last), each told as it is known;
	// listed in the plan's order: audit, Δ2, simulated releases.
	var audit []estimateStep
	if privateAnswer {
		opt := recovery.CertifierOptions{Tol: o.fitTolerance, SensorNoise: o.sensorNoise.at(gr.N())}
		st := estimateStep{Step: "answer audit", Model: "reused from the store: the certificate kept (--answer-cache, or the store --cache-dir) verifies"}
		if !held.AnswerModel {
			var err error
			if st, err = auditStep(gr, tau, opt); err != nil {
				return planEstimate{}, err
			}
		}
		each(st)
		audit = append(audit, st)
	}
	if perNode {
		taus := []float64{tau}
		for _, sm := range o.smooth {
			taus = append(taus, tau+sm)
		}
		for i, t := range taus {
			var st estimateStep
			switch {
			case i == 0 && held.Delta2 != nil:
				st = estimateStep{Step: fmt.Sprintf("Δ2 at τ = %g", t), Model: "reused: the certificate kept in --cache-dir verifies"}
			case i == 0 && auditsAnswers && !held.AnswerModel:
				// The audit's pass runs first and brackets every edge's
				// term: Δ2 refines the few near the top (seconds; the
				// full scheme only where the brackets are too wide).
				st = estimateStep{Step: fmt.Sprintf("Δ2 at τ = %g", t), Seconds: passDelta2Seconds,
					Model: "from the answer audit's pass: its brackets of every edge's term, the edges near the top refined by Lanczos"}
			default:
				st = delta2Step(gr, t, sensitivity.Options{TimeBudget: o.timeBudget})
			}
			each(st)
			e.Steps = append(e.Steps, st)
		}
		// Per level (ε not kept, and τ+τ′ per --smooth): every mass of the
		// curve, each up to VerdictRounds rounds of trials.
		levels := len(o.epsilons) - len(held.Rows[forecast.ModePerNode])
		e.Simulations += levels * (1 + len(o.smooth)) * len(forecast.MassGrid()) * forecast.VerdictRounds * o.trials
		switch {
		case levels == 0:
			st := estimateStep{Step: "per-node forecasts", Model: "reused: every ε is kept in --cache-dir"}
			each(st)
			e.Steps = append(e.Steps, st)
		default:
			sim := o.simulation(lg.Graph, nil, nil, privacy.MechanismDefault)
			sim.Tau, sim.Sigma = o.taus[0], 0 // timePool's σ
			c, ok := poolCost{}, false
			if timed {
				c, ok = timePool(sim)
			}
			if !ok { // not timed, or its trials ran past trialTiming (a loaded machine): the step rate's price
				c, ok = pricePool(sim)
			}
			if ok {
				st := poolStep(levels, 1+len(o.smooth), o.trials, c)
				each(st)
				e.Steps = append(e.Steps, st)
			}
		}
	}
	if auditsAnswers {
		st := estimateStep{Step: "answer calibrations", Model: "reused: kept beside the certificate (restored, their loss checked on every edge; an ε not kept is calibrated, unpriced)"}
		if !held.AnswerModel {
			per := privacy.CalibrationSeconds(gr, part)
			st = estimateStep{Step: st.Step, Seconds: float64(len(o.epsilons)) * per,
				Model: fmt.Sprintf("%d ε at %.3g s, the envelope's spreads modelled on the 2-core reference machine", len(o.epsilons), per)}
		}
		each(st)
		audit = append(audit, st) // the audits' rows before the sweep
	}
	if part != nil {
		if left := len(o.epsilons) - len(held.Rows[forecast.CeilingMode]); left > 0 {
			per := forecast.RoutedCeilingSeconds(gr.N(), k)
			st := estimateStep{Step: "routed ceilings", Seconds: float64(left) * per,
				Model: fmt.Sprintf("%d ε at %.3g s, the dual steps' pair reads modelled on the 2-core reference machine", left, per)}
			each(st)
			e.Steps = append(e.Steps, st)
		}
	}
	// The private answer's rows are its audit's where the audit passes
	// (job.Forecast): its trials are simulated only where an audit fails,
	// or without the audit (no partition, a τ the pass refuses), and are
	// priced only when the audit does not run.
	if privateAnswer && !auditsAnswers && len(held.Rows[forecast.ModeAnswer]) < len(o.epsilons) {
		e.Simulations += o.trials
		sim := o.simulation(lg.Graph, nil, nil, privacy.MechanismDefault)
		sim.Tau, sim.Sigma = o.taus[0], 0
		if c, ok := timeAnswerTrials(sim, o.alpha); ok {
			st := trialsStep("private-answer trials", o.trials, o.trials, c)
			each(st)
			e.Steps = append(e.Steps, st)
		}
	}
	e.Steps = append(audit, e.Steps...) // in the plan's order: the audit's pass runs first
	for _, s := range e.Steps {
		e.Seconds += s.Seconds
	}
	e.Millis = time.Since(start).Milliseconds()
	return e, nil
}

// printPlanEstimate prints plan --estimate.
func printPlanEstimate(g *globalOptions, out io.Writer, e planEstimate) error {
	if g.output == "json" {
		return printJSON(out, e)
	}
	fmt.Fprintf(out, "plan of graph %s (%d nodes, %d relationships) at τ = %g: estimated %s for its modelled steps; nothing computed\n",
		e.Graph, e.NodeCount, e.Edges, e.Tau, answer.HumanDuration(time.Duration(e.Seconds*float64(time.Second))))
	for _, s := range e.Steps {
		fmt.Fprintf(out, "  %-20s %-12s %s\n", s.Step, answer.HumanDuration(time.Duration(s.Seconds*float64(time.Second))), s.Model)
	}
	if e.Simulations > 0 && !e.simulationsModelled() {
		fmt.Fprintf(out, "  and up to %d simulated releases (not modelled: their progress lines give an ETA as they run)\n", e.Simulations)
	}
	return nil
}

// runPlanEstimate loads the graph and prints plan --estimate.
func runPlanEstimate(g *globalOptions, o *planOptions, lg *stores.Graph, spec job.ForecastSpec, out io.Writer) error {
	e, err := estimatePlan(g, o, lg, spec, true, nil)
	if err != nil {
		return err
	}
	return printPlanEstimate(g, out, e)
}

// passDelta2Seconds is what Δ2 from the answer audit's pass is priced
// at: the Lanczos refinement of the few edges its brackets leave near the
// top (LFR 2·10⁴ at τ = 1: under a second, docs/results.md).
const passDelta2Seconds = 1

// planEstimateNodes is the size from which plan prints its estimate
// before it starts: below it the models' own cost (timing Δ2's bounds,
// measuring the step rate) is not worth it, and the plan is short.
const planEstimateNodes = 5000

// sayStepsAfter is how long plan's modelling may take before it tells
// each step's estimate as it is modelled instead of the sum first.
const sayStepsAfter = 1500 * time.Millisecond

// sayPlanEstimate prints plan's estimate (estimatePlan) before its long
// steps — their sum, then each step's (each as it is modelled once the
// modelling has taken sayStepsAfter) — when the graph has
// planEstimateNodes nodes or more and the modelled steps take more than
// longStep.
func sayPlanEstimate(g *globalOptions, o *planOptions, lg *stores.Graph, spec job.ForecastSpec) {
	if g.quiet || lg.Graph.N() < planEstimateNodes {
		return
	}
	// The sum first, then each long step's estimate — unless modelling
	// takes over sayStepsAfter (timing trials on a large graph): then each
	// step's as soon as it is modelled, so that a line comes early.
	var mu sync.Mutex
	var held []string
	late := false
	flush := func() {
		for _, l := range held {
			g.say(l)
		}
		held = nil
	}
	timer := time.AfterFunc(sayStepsAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		late = true
		flush()
	})
	e, err := estimatePlan(g, o, lg, spec, false, func(st estimateStep) {
		if st.Seconds <= longStep.Seconds() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		held = append(held, fmt.Sprintf("estimated %s for %s: %s", seconds(st.Seconds), st.Step, st.Model))
		if late {
			flush()
		}
	})
	timer.Stop()
	for _, st := range e.Steps {
		g.stepRates.keep(lg.Graph, st.Audit) // the pass's own line prices with it
	}
	mu.Lock()
	defer mu.Unlock()
	defer flush()
	if err != nil || e.Seconds <= longStep.Seconds() {
		return
	}
	line := "estimated " + answer.HumanDuration(time.Duration(e.Seconds*float64(time.Second))) + " for the plan's modelled steps ("
	for i, s := range e.Steps {
		if i > 0 {
			line += ", "
		}
		line += s.Step + " " + answer.HumanDuration(time.Duration(s.Seconds*float64(time.Second)))
	}
	if !e.simulationsModelled() {
		line += fmt.Sprintf("; and up to %d simulated releases, not modelled", e.Simulations)
	}
	g.say(line + ") — plan --estimate explains")
}

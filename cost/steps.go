package cost

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// Step is one long step's modelled time and the model it comes from.
type Step struct {
	Step    string  `json:"step"`
	Seconds float64 `json:"seconds"`
	Model   string  `json:"model"`
	// auditModel is the answer audit's cost model (answer audit only): the
	// pass's own line prints it (Plan.AuditLine), not a second model.
	Audit *answer.WorkEstimate `json:"audit,omitempty"`
}

// Estimate is a command's --estimate: the modelled steps of the command
// on its graph, none of them computed.
type Estimate struct {
	Command   string  `json:"command"`
	Graph     string  `json:"graph"`
	NodeCount int     `json:"nodeCount"`
	Edges     int     `json:"relationships"`
	Tau       float64 `json:"tau,omitempty"`
	Steps     []Step  `json:"steps"`
	// Seconds is the sum of the modelled steps; Millis what the estimate
	// took (loading the graph, the models, the timed trials), set by
	// Finish.
	Seconds float64 `json:"seconds"`
	Millis  int64   `json:"computeMillis"`
	start   time.Time
}

// NewEstimate starts the estimate of command on gr (read from spec),
// begun at start.
func NewEstimate(command, spec string, gr *laplacian.Graph, tau float64, start time.Time) *Estimate {
	return &Estimate{Command: command, Graph: spec, NodeCount: gr.N(), Edges: gr.NumEdges(), Tau: tau, Steps: []Step{}, start: start}
}

// Add appends a step and adds its seconds.
func (e *Estimate) Add(s Step) {
	e.Steps = append(e.Steps, s)
	e.Seconds += s.Seconds
}

// Finish sets Millis, the time since the estimate began.
func (e *Estimate) Finish() { e.Millis = time.Since(e.start).Milliseconds() }

// Line is the estimate line printed before long work: "estimated 3 min
// 20 s for the release's modelled steps (Δ2 at τ = 1 2 min, …)".
func Line(what string, total float64, steps []Step) string {
	line := "estimated " + human(total) + " for " + what + " ("
	for i, s := range steps {
		if i > 0 {
			line += ", "
		}
		line += s.Step + " " + human(s.Seconds)
	}
	return line + ")"
}

// Human renders seconds for a reader, as every estimate line does
// (answer.HumanDuration).
func Human(s float64) string { return answer.HumanDuration(time.Duration(s * float64(time.Second))) }

func human(s float64) string { return Human(s) }

// delta2Step is Δ2's estimate at τ on gr: sensitivity.ChooseMethod, the
// chooser and cost model Δ2 itself follows (the sensitivity command's dry
// run's, named by name).
func delta2Step(gr *laplacian.Graph, tau float64, opt sensitivity.Options, name Names) Step {
	c := sensitivity.ChooseMethod(gr, tau, opt)
	return Step{Step: fmt.Sprintf("Δ2 at τ = %g", tau), Seconds: c.Seconds,
		Model: c.Name() + ", modelled on the 2-core reference machine (sensitivity " + name.of(ParamDryRun) + ")"}
}

// Delta2Line is the line a release tells before it computes Δ2 at τ on
// g within budget (delta2Step's model: the method Δ2 follows, priced on the
// 2-core reference machine), "" when it is not over long seconds.
func Delta2Line(g *laplacian.Graph, tau float64, budget time.Duration, long float64) string {
	c := sensitivity.ChooseMethod(g, tau, sensitivity.Options{TimeBudget: budget})
	if c.Seconds <= long {
		return ""
	}
	return fmt.Sprintf("estimated %s for Δ2 at τ = %g (%s, modelled on the 2-core reference machine)", human(c.Seconds), tau, c.Name())
}

// auditModel is the answer audit's estimate at τ on gr with opt: its cost
// model at the step rate measured on gr (answer.EstimateAudit).
func auditModel(gr *laplacian.Graph, tau float64, opt recovery.CertifierOptions) (Step, error) {
	w, err := answer.EstimateAudit(gr, tau, opt, nil, 0)
	if err != nil {
		return Step{}, err
	}
	return auditWorkStep(w), nil
}

// auditWorkStep is the step of the answer audit's estimate w.
func auditWorkStep(w answer.WorkEstimate) Step {
	return Step{Step: "answer audit", Seconds: w.Seconds, Audit: &w,
		Model: fmt.Sprintf("(S + C + 2R)·K·(2|E|+n) = %.2g steps (S + R = %d sources, C = %d of them correlated) at %.2g ns a step measured on %d cores", w.Steps, w.Sources, w.Correlated, w.NanosPerStep, w.Workers)}
}

// trialCost is what timeTrials measured of simulated releases on a
// graph: when the first and the last of Done trials finished (seconds
// from the simulation's start), and their σ.
type trialCost struct {
	First, Last float64
	Done        int
	Sigma       float64
}

// PerTrial is the wall time of a trial in a simulation of trials trials
// (TrialSeconds: the pace after the first, the first's time shared by
// its block).
func (c trialCost) PerTrial(trials int) float64 {
	return TrialSeconds(c.First, c.Last, c.Done, trials)
}

// sampleSigma is the noise of the trials timed for an estimate: the time
// of a trial moves little with σ (measured 0.01–1 on preferential
// attachment, 2·10³ and 8·10³ nodes: within 25%).
const sampleSigma = 0.1

// timeTrials times simulated releases of sim (its graph, partition, τ
// and estimator; σ = sampleSigma when it has none; the model's setup
// included): a block of forecast.TrialBlock trials, as a simulation draws
// them, stopped once two trials a worker after the first have finished
// and a second has passed (a trial took 2.5 s of a core on e-mail Enron),
// or at trialTiming. ok is false when no trial finished by then (an
// estimate then leaves them out).
func timeTrials(sim forecast.Simulation) (trialCost, bool) {
	return timeSimulation(sim, func(ctx context.Context, sim forecast.Simulation) error {
		_, err := forecast.Simulate(ctx, sim)
		return err
	})
}

// timeAnswerTrials is timeTrials for the private answer's simulated
// trials (forecast.SimulateAnswer at ε = 1: the operator's recovery, again
// where the plain one missed), which cost several per-node trials each.
func timeAnswerTrials(sim forecast.Simulation, alpha float64) (trialCost, bool) {
	return timeSimulation(sim, func(ctx context.Context, sim forecast.Simulation) error {
		_, err := forecast.SimulateAnswer(ctx, forecast.AnswerSimulation{Graph: &sim, Epsilon: 1, Alpha: alpha})
		return err
	})
}

// sampled is sim as the estimates time it: one community where it has no
// partition (scoring is not what is timed), σ = sampleSigma where it has
// none.
func sampled(sim forecast.Simulation) forecast.Simulation {
	if sim.Partition == nil {
		sim.Partition = make([]int, sim.Graph.N())
	}
	if sim.Sigma <= 0 {
		sim.Sigma = sampleSigma
	}
	return sim
}

// timeSimulation times run on sim as timeTrials describes.
func timeSimulation(sim forecast.Simulation, run func(context.Context, forecast.Simulation) error) (trialCost, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), trialTiming)
	defer cancel()
	sim = sampled(sim)
	if sim.Epsilon <= 0 {
		sim.Epsilon = 1
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	start := time.Now()
	var mu sync.Mutex
	var c trialCost
	sim.Trials, sim.TimeBudget, sim.MinTrials, sim.Workers = forecast.TrialBlock, 0, 0, workers
	sim.Progress = func(d, _ int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Since(start).Seconds()
		if c.Done == 0 && d > 0 {
			c.First = now
		}
		if d > c.Done {
			c.Done, c.Last = d, now
		}
		if c.Done >= 2*workers+1 && now > 1 {
			cancel()
		}
	}
	// The trials still running when it is cancelled are not waited for.
	failed := make(chan bool, 1)
	go func() {
		err := run(ctx, sim)
		failed <- err != nil && ctx.Err() == nil
	}()
	bad := false
	select {
	case bad = <-failed:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	if c.Done == 0 || bad {
		return trialCost{}, false
	}
	c.Sigma = sim.Sigma
	return c, true
}

// trialTiming bounds timeTrials and timePool.
const trialTiming = 5 * time.Second

// trialsStep prices n simulated releases in simulations of trials trials
// each at c.
func trialsStep(step string, n, trials int, c trialCost) Step {
	per := c.PerTrial(trials)
	return Step{Step: step, Seconds: float64(n) * per,
		Model: fmt.Sprintf("%d × %.3g s a trial, timed on %d trials of this graph (σ = %g)", n, per, c.Done, c.Sigma)}
}

// Loaded is the graph's load, measured: the estimate loads the graph to
// model the rest.
func Loaded(d time.Duration) Step {
	return Step{Step: "load the graph", Seconds: d.Seconds(), Model: "measured: the estimate loaded it"}
}

// writeBackPropsPerSecond is the reference rate of a write-back to Neo4j:
// 2.5–2.6·10⁵ node properties a second (docs/results.md, "Neo4j
// write-back", 10⁵ nodes, 4 properties each).
const writeBackPropsPerSecond = 2.5e5

// writeBackStep is the write-back of props node properties to Neo4j.
func writeBackStep(props int) Step {
	return Step{Step: "write-back", Seconds: float64(props) / writeBackPropsPerSecond,
		Model: fmt.Sprintf("%d node properties at the reference %.2g a second", props, float64(writeBackPropsPerSecond))}
}

// poolCost is what timePool measured of a forecast's trials on a graph:
// the seconds a trial takes to draw (its share of a block's actions,
// once for every ε) and to score at one ε (recovery and ranking).
type poolCost struct {
	Setup, Draw, Score float64
	How                string // how Draw and Score were had
}

// timePool times a block of forecast.TrialBlock trials of sim as the
// plan's forecasts run them: drawn into a forecast.TrialPool (the models'
// setup included), then scored again from the pool's kept draws. ok is
// false when the block did not finish within trialTiming.
func timePool(sim forecast.Simulation) (poolCost, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), trialTiming)
	defer cancel()
	sim = sampled(sim)
	sim.Trials, sim.TimeBudget, sim.MinTrials, sim.Progress = forecast.TrialBlock, 0, 0, nil
	start := time.Now()
	pool, err := forecast.NewTrialPool(sim)
	if err != nil {
		return poolCost{}, false
	}
	setup := time.Since(start).Seconds()
	start = time.Now()
	sim.Pool = pool
	// As the plan scores them (forecast.PerNode: no EMD); one community
	// decides the verdict in its first round.
	if _, err := forecast.PerNode(ctx, sim); err != nil {
		return poolCost{}, false
	}
	both := time.Since(start).Seconds()
	start = time.Now()
	if _, err := forecast.PerNode(ctx, sim); err != nil {
		return poolCost{}, false
	}
	score := time.Since(start).Seconds()
	n := float64(forecast.TrialBlock)
	return poolCost{Setup: setup, Draw: math.Max(both-score, 0) / n, Score: score / n,
		How: fmt.Sprintf("timed on %d trials of this graph, σ = %g", forecast.TrialBlock, sim.Sigma)}, true
}

// pricePool prices sim's trials as timePool measures them, without
// running any (a second on large graphs): each draw at
// PerNodeTrialSeconds, its step rate measured, and each score at
// scoreNodeSeconds a node. ok is false where trials are not priced (small
// graphs, whose action is dense).
func pricePool(sim forecast.Simulation) (poolCost, bool) { return pricePoolAt(sim, 0) }

// pricePoolAt is pricePool at step seconds a step of the action (0: the
// rate measured now, trialStepSeconds).
func pricePoolAt(sim forecast.Simulation, step float64) (poolCost, bool) {
	if step <= 0 {
		if chebyshevDegree(sim.Graph, sim.Tau, forecast.TrialBlock) == 0 {
			return poolCost{}, false // dense: not priced, nothing measured
		}
		step = trialStepSeconds(sim.Graph)
	}
	per, how := PerNodeTrialSeconds(sim.Graph, sim.Tau, forecast.TrialBlock, step)
	if per <= 0 {
		return poolCost{}, false
	}
	return poolCost{Draw: per, Score: scoreNodeSeconds * float64(sim.Graph.N()),
		How: fmt.Sprintf("priced at %s, scores at %g ns a node", how, scoreNodeSeconds*1e9)}, true
}

// MassBarCost prices the work of the per-node forecasts' bar as the
// step's estimate does (pricePool, poolStep): a trial drawn at
// PerNodeTrialSeconds (this machine's step rate measured), scored at
// scoreNodeSeconds a node, a null draw of locate's verdict one column
// action (a perNodeTrialActions-th of a draw) — for the bar to move as
// the time goes (forecast.EpsilonSweep.BarCost). Zero where trials are not
// priced (a dense action: the bar's own weights).
func (w PlanWork) MassBarCost() forecast.PilotCost {
	c, ok := pricePool(w.Simulation)
	if !ok {
		return forecast.PilotCost{}
	}
	return forecast.PilotCost{Draw: c.Draw, Score: c.Score, Null: c.Draw / perNodeTrialActions}
}

// scoreNodeSeconds is what scoring a drawn trial at one ε costs a node
// (its ranking and verdict) on two cores: 25 ns on astro-ph, 24–44 on LFR
// 2·10⁴ (plan's step less its draws at the measured step rate, over the
// trials scored), 17–18 ns of CPU over two cores in both's profiles (a
// node costs the same: what differs is how many trials are scored,
// poolStep).
const scoreNodeSeconds = 30e-9

// poolStep prices a plan's per-node forecasts: for each of taus diffusion
// times, one pool of ForecastRounds rounds of trials trials drawn once
// for every mass and ε (forecast.MassCurves), and at each of levels ε the
// trials scored: half the mass grid at chance (below the noise, each
// forecast.ChanceRounds rounds: 1 where the guess is far above 0, 4 on LFR
// 2·10⁴'s 292 small communities), the other half decided in one round,
// mass 0 for the paired test (as many rounds as a mass at chance),
// refineRounds rounds of the verdict curve's refinement masses and
// locate's step (locateStepTrials) — on LFR 2·10⁴ about 37 rounds an ε,
// on astro-ph about 24, where two rounds at every mass said 24 for both
// (LFR's step 0.73× its line, astro-ph's 1.57×, issue 79); and locate's
// verdict draws its nulls — the mass bound's once (at τ not when
// held.MassNull), the evidence test's at each ε — a column action each.
// The pool at τ is read, not drawn, when the store keeps it
// (held.Trials).
func poolStep(levels, taus, trials, chance int, c poolCost, held Held) Step {
	masses := float64(len(forecast.MassGrid()))
	rounds := masses/2*float64(chance) + masses/2 + float64(chance) + refineRounds
	drawn := taus * ForecastRounds * trials
	pool := fmt.Sprintf("one pool of %d rounds × %d trials drawn once at %.3g s", ForecastRounds, trials, c.Draw)
	if held.Trials {
		drawn -= ForecastRounds * trials
		pool = fmt.Sprintf("the pool of %d rounds × %d trials read from the store", ForecastRounds, trials)
	}
	scored := float64(levels*taus) * (rounds*float64(trials) + locateStepTrials)
	nulls := taus * (forecast.MassNullDraws + levels*recovery.DefaultEvidenceDraws)
	if held.MassNull {
		nulls -= forecast.MassNullDraws
	}
	seconds := float64(taus)*c.Setup + float64(drawn)*c.Draw + scored*c.Score + float64(nulls)*c.Draw/perNodeTrialActions
	return Step{Step: "per-node forecasts", Seconds: seconds,
		Model: fmt.Sprintf("%s; at each of %d ε %.3g rounds scored (half the %g masses at chance, %d rounds each), mass 0, refinements and locate's step, %.0f trials in all at %.3g s; %d null draws at a column action each (%s)",
			pool, levels, rounds, masses, chance, scored, c.Score, nulls, c.How)}
}

// refineRounds is the rounds of trials the verdict curve's refinement
// masses take at one ε (5–8 masses of one round on astro-ph and LFR
// 2·10⁴; forecast's refineMax bounds them at 8), locateStepTrials
// locate's step's trials (8 rounds of locate's 100).
const (
	refineRounds     = 7
	locateStepTrials = 800
)

// chanceRounds is the rounds of trials trials forecast.PerNode takes at
// a mass where the rate is the guess on part (max(1/k, the largest
// community's share): the rate at chance, as at every mass below the
// noise), by forecast.VerdictRoundsAt: the fewer the more the guess is
// above 0 — 1 on astro-ph (1 072 communities, the largest 6 % of the
// nodes), 4 on LFR 2·10⁴ (292 communities of under 1 % each).
func chanceRounds(part []int, trials int) int {
	if len(part) == 0 {
		return forecast.VerdictRounds
	}
	size := map[int]int{}
	largest := 0
	for _, c := range part {
		size[c]++
		largest = max(largest, size[c])
	}
	guess := math.Max(1/float64(len(size)), float64(largest)/float64(len(part)))
	rounds, _ := forecast.VerdictRoundsAt(guess, guess, trials)
	return rounds
}

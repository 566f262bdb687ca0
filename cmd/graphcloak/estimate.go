package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// The --estimate of every command (GDS's .estimate): what each long step
// is modelled to take, computing, writing and charging nothing. Each step
// has one model, here, shared by every command that runs the step and by
// the estimate line a command prints before it: Δ2 by the sensitivity
// package's cost model, the answer audit by its cost model at this
// machine's measured step rate, simulated releases by a few trials timed
// on the graph, the write of a load at the reference rate.

// estimateStep is one step's estimate and the model it comes from.
type estimateStep struct {
	Step    string  `json:"step"`
	Seconds float64 `json:"seconds"`
	Model   string  `json:"model"`
	// Audit is the answer audit's cost model (answer audit only).
	Audit *answer.WorkEstimate `json:"audit,omitempty"`
}

// workEstimate is release, locate and load --estimate: the modelled
// steps of the command on its graph, none of them computed.
type workEstimate struct {
	Command   string         `json:"command"`
	Graph     string         `json:"graph"`
	NodeCount int            `json:"nodeCount"`
	Edges     int            `json:"relationships"`
	Tau       float64        `json:"tau,omitempty"`
	Steps     []estimateStep `json:"steps"`
	// Seconds is the sum of the modelled steps; Millis what the estimate
	// took (loading the graph, the models, the timed trials).
	Seconds float64 `json:"seconds"`
	Millis  int64   `json:"computeMillis"`
	start   time.Time
}

// newWorkEstimate starts the estimate of command on gr (read from spec).
func newWorkEstimate(command, spec string, gr *laplacian.Graph, tau float64, start time.Time) *workEstimate {
	return &workEstimate{Command: command, Graph: spec, NodeCount: gr.N(), Edges: gr.NumEdges(), Tau: tau, Steps: []estimateStep{}, start: start}
}

// add appends a step and adds its seconds.
func (e *workEstimate) add(s estimateStep) {
	e.Steps = append(e.Steps, s)
	e.Seconds += s.Seconds
}

// print prints the estimate: its JSON, or a table.
func (e *workEstimate) print(g *globalOptions, out io.Writer) error {
	e.Millis = time.Since(e.start).Milliseconds()
	if g.output == "json" {
		return printJSON(out, e)
	}
	fmt.Fprintf(out, "%s on graph %s (%d nodes, %d relationships): estimated %s for its modelled steps; nothing computed, written or charged\n",
		e.Command, e.Graph, e.NodeCount, e.Edges, seconds(e.Seconds))
	printSteps(out, e.Steps)
	return nil
}

// printSteps prints estimate steps as the rows of a table.
func printSteps(out io.Writer, steps []estimateStep) {
	for _, s := range steps {
		fmt.Fprintf(out, "  %-26s %-12s %s\n", s.Step, seconds(s.Seconds), s.Model)
	}
}

// seconds renders a modelled time (answer.HumanDuration).
func seconds(s float64) string { return answer.HumanDuration(time.Duration(s * float64(time.Second))) }

// stepsLine is the estimate line printed before long work: "estimated
// 3 min 20 s for the release's modelled steps (Δ2 at τ = 1 2 min, …)".
func stepsLine(what string, total float64, steps []estimateStep) string {
	line := "estimated " + seconds(total) + " for " + what + " ("
	for i, s := range steps {
		if i > 0 {
			line += ", "
		}
		line += s.Step + " " + seconds(s.Seconds)
	}
	return line + ")"
}

// delta2Step is Δ2's estimate at τ on gr: sensitivity.ChooseMethod, the
// chooser and cost model Δ2 itself follows (sensitivity --dry-run's).
func delta2Step(gr *laplacian.Graph, tau float64, opt sensitivity.Options) estimateStep {
	c := sensitivity.ChooseMethod(gr, tau, opt)
	return estimateStep{Step: fmt.Sprintf("Δ2 at τ = %g", tau), Seconds: c.Seconds,
		Model: c.Name() + ", modelled on the 2-core reference machine (sensitivity --dry-run)"}
}

// sayDelta2Estimate prints the sensitivity command's estimate before Δ2
// is computed at τ on gr with opt: the time since began (the load and
// Δ2's model) and Δ2's (delta2Step), when the graph has planEstimateNodes
// nodes or more (below, the model's own bound timings are not worth it)
// and their sum is more than longStep.
func sayDelta2Estimate(g *globalOptions, gr *laplacian.Graph, tau float64, opt sensitivity.Options, began time.Time) {
	if g.quiet || gr.N() < planEstimateNodes {
		return
	}
	st := delta2Step(gr, tau, opt)
	so := time.Since(began).Seconds()
	if so+st.Seconds > longStep.Seconds() {
		g.say(fmt.Sprintf("estimated %s for the sensitivity (%s so far, %s %s: %s)",
			seconds(so+st.Seconds), seconds(so), st.Step, seconds(st.Seconds), st.Model))
	}
}

// auditStep is the answer audit's estimate at τ on gr with opt: its
// cost model at the step rate measured on gr (answer.EstimateAudit).
func auditStep(gr *laplacian.Graph, tau float64, opt recovery.CertifierOptions) (estimateStep, error) {
	w, err := answer.EstimateAudit(gr, tau, opt, nil, 0)
	if err != nil {
		return estimateStep{}, err
	}
	return estimateStep{Step: "answer audit", Seconds: w.Seconds, Audit: &w,
		Model: fmt.Sprintf("2·S·K·(2|E|+n) = %.2g steps at %.2g ns a step measured on %d cores", w.Steps, w.NanosPerStep, w.Workers)}, nil
}

// trialCost is what timeTrials measured of simulated releases on a
// graph: when the first and the last of Done trials finished (seconds
// from the simulation's start), and their σ.
type trialCost struct {
	First, Last float64
	Done        int
	Sigma       float64
}

// perTrial is the wall time of a trial in a simulation of trials trials
// (job.TrialSeconds: the pace after the first, the first's time shared by
// its block).
func (c trialCost) perTrial(trials int) float64 {
	return job.TrialSeconds(c.First, c.Last, c.Done, trials)
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

// trialTiming bounds timeTrials.
const trialTiming = 5 * time.Second

// trialsStep prices n simulated releases in simulations of trials trials
// each at c.
func trialsStep(step string, n, trials int, c trialCost) estimateStep {
	per := c.perTrial(trials)
	return estimateStep{Step: step, Seconds: float64(n) * per,
		Model: fmt.Sprintf("%d × %.3g s a trial, timed on %d trials of this graph (σ = %g)", n, per, c.Done, c.Sigma)}
}

// loadedStep is the graph's load, measured: the estimate loads the graph
// to model the rest.
func loadedStep(d time.Duration) estimateStep {
	return estimateStep{Step: "load the graph", Seconds: d.Seconds(), Model: "measured: the estimate loaded it"}
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
// job.PerNodeTrialSeconds, its step rate measured, and each score at
// scoreNodeSeconds a node. ok is false where trials are not priced (small
// graphs, whose action is dense).
func pricePool(sim forecast.Simulation) (poolCost, bool) {
	per, how := job.PerNodeTrialSeconds(sim.Graph, sim.Tau, forecast.TrialBlock)
	if per <= 0 {
		return poolCost{}, false
	}
	return poolCost{Draw: per, Score: scoreNodeSeconds * float64(sim.Graph.N()),
		How: fmt.Sprintf("priced at %s, scores at %g ns a node", how, scoreNodeSeconds*1e9)}, true
}

// scoreNodeSeconds is what scoring a drawn trial at one ε costs a node
// (its ranking and verdict): 20–47 ns timed by timePool on LFR 2·10⁴,
// pgp-strong-2009 and e-mail Enron.
const scoreNodeSeconds = 40e-9

// poolStep prices a plan's per-node forecasts: for each of taus diffusion
// times, every mass of the curve takes job.ForecastRounds rounds of trials
// trials (one to forecast.VerdictRounds, as the rate is far from or near
// the guess), drawn once and scored at each of levels ε.
func poolStep(levels, taus, trials int, c poolCost) estimateStep {
	masses := len(forecast.MassGrid())
	drawn := taus * masses * job.ForecastRounds * trials
	seconds := float64(taus)*c.Setup + float64(drawn)*c.Draw + float64(levels*drawn)*c.Score
	return estimateStep{Step: "per-node forecasts", Seconds: seconds,
		Model: fmt.Sprintf("%d masses × %d rounds × %d trials drawn once at %.3g s, scored at %d ε at %.3g s (%s)",
			masses, job.ForecastRounds, trials, c.Draw, levels, c.Score, c.How)}
}

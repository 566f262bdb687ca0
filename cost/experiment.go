package cost

import (
	"fmt"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// answerExperimentSteps models the private-answer experiment on sim's graph
// and partition over taus and epsilons ε: per τ the trials
// (answerTrialSecondsAt, the step rate measured once for every τ), each τ
// and ε's calibration (privacy.CalibrationSeconds) and each ε's routed
// ceiling once (forecast.CountCeilingWork). ok is false where the
// trials are not priced (a dense action: a small graph, quick).
func answerExperimentSteps(sim forecast.Simulation, taus []float64, epsilons int) (steps []Step, ok bool) {
	step := trialStepSeconds(sim.Graph) // once, for every τ
	for _, tau := range taus {
		per, how := answerTrialSecondsAt(sim.Graph, tau, sim.Trials, step)
		if per == 0 {
			return nil, false
		}
		steps = append(steps, Step{Step: fmt.Sprintf("trials at τ = %g", tau), Seconds: float64(sim.Trials) * per,
			Model: fmt.Sprintf("%d trials at %.3g s: %s", sim.Trials, per, how)})
	}
	eps := float64(epsilons)
	return append(steps,
		Step{Step: "calibrations", Seconds: float64(len(taus)) * eps * privacy.CalibrationSeconds(sim.Graph, sim.Partition)},
		Step{Step: "ceilings", Seconds: eps * forecast.CountCeilingWork(sim.Graph, sim.Partition).Seconds}), true
}

// graphExperimentTrials models the graph experiment's trials on sim's
// graph: per τ of taus, points points (its ε, or one with a fixed σ) of
// sim.Trials trials at PerNodeTrialSeconds, the step rate measured once
// for every τ. ok is false where they are not priced (a dense action).
func graphExperimentTrials(sim forecast.Simulation, taus []float64, points int) (steps []Step, ok bool) {
	step := trialStepSeconds(sim.Graph) // once, for every τ
	for _, tau := range taus {
		per, how := PerNodeTrialSeconds(sim.Graph, tau, sim.Trials, step)
		if per == 0 {
			return nil, false
		}
		steps = append(steps, Step{Step: fmt.Sprintf("trials at τ = %g", tau), Seconds: float64(points*sim.Trials) * per,
			Model: fmt.Sprintf("%d ε × %d trials at %.3g s: %s", points, sim.Trials, per, how)})
	}
	return steps, true
}

// GraphExperimentWork is a graph experiment about to run, as its estimate
// prices it: its simulation (before its communities are detected), the τ
// it sweeps and its count of ε, the --communities it scores by and Δ2's
// time budget; Names names the parameters its models cite.
type GraphExperimentWork struct {
	Simulation  forecast.Simulation
	Taus        []float64
	Epsilons    int
	Communities string
	TimeBudget  time.Duration
	Names       Names
}

// TellGraphExperiment says (say) the graph experiment's estimate before it
// runs, on graphs of LineNodes nodes or more, when over long seconds:
// community detection (Leiden or Louvain), then per τ Δ2 (delta2Step; none
// with a fixed σ) and the trials of each ε (graphExperimentTrials). Δ2's
// model takes seconds on large graphs (e-mail Enron at τ = 2: 1.7 s), so a
// guess at Δ2 (Delta2Guess) is told GuessDeadline after began if the model
// has not finished by then; the modelled line counts the time the models
// took as time so far.
func TellGraphExperiment(say func(string), w GraphExperimentWork, began time.Time, long float64) {
	sim := w.Simulation
	if sim.Graph.N() < LineNodes {
		return
	}
	points := w.Epsilons
	if sim.Sigma != 0 {
		points = 1 // ε does not apply
	}
	trials, ok := graphExperimentTrials(sim, w.Taus, points)
	if !ok {
		return
	}
	line := func(so float64, delta2 func(tau float64) Step) string {
		var steps []Step
		if so > 0 {
			steps = append(steps, Step{Step: "so far", Seconds: so})
		}
		if kind, _, _ := strings.Cut(w.Communities, ":"); kind == "leiden" || kind == "louvain" {
			steps = append(steps, detectionStep(sim.Graph.NumEdges()))
		}
		for i, tau := range w.Taus {
			if sim.Sigma == 0 {
				steps = append(steps, delta2(tau))
			}
			steps = append(steps, trials[i])
		}
		total := 0.0
		for _, st := range steps {
			total += st.Seconds
		}
		if total > long {
			return Line("the experiment", total, steps)
		}
		return ""
	}
	opt := sensitivity.Options{TimeBudget: w.TimeBudget}
	drop := HoldLine(say, began.Add(GuessDeadline), line(0, func(tau float64) Step {
		return Step{Step: fmt.Sprintf("Δ2 at τ = %g guessed", tau), Seconds: Delta2Guess(sim.Graph, tau, opt)}
	}))
	delta2 := map[float64]Step{}
	for _, tau := range w.Taus {
		if sim.Sigma == 0 {
			delta2[tau] = delta2Step(sim.Graph, tau, opt, w.Names)
		}
	}
	modelled := line(time.Since(began).Seconds(), func(tau float64) Step { return delta2[tau] })
	drop()
	if modelled != "" {
		say(modelled)
	}
}

// answerExperimentLine is the private-answer experiment's estimate line
// once its partition is known (its calibrations and ceilings depend on
// it): the time since began (the load and the communities), then
// answerExperimentSteps's steps; "" on graphs under LineNodes nodes, without a
// partition, where the trials are not priced, or when not over long
// seconds.
func answerExperimentLine(sim forecast.Simulation, taus []float64, epsilons int, began time.Time, long float64) string {
	if sim.Graph.N() < LineNodes || sim.Partition == nil {
		return ""
	}
	steps, ok := answerExperimentSteps(sim, taus, epsilons)
	if !ok {
		return ""
	}
	so := time.Since(began).Seconds()
	total := so
	for _, st := range steps {
		total += st.Seconds
	}
	if total <= long {
		return ""
	}
	return Line("the experiment", total, append([]Step{{Step: "so far", Seconds: so}}, steps...))
}

// sensitivityLine is the sensitivity command's estimate line before Δ2 is
// computed at τ on gr with opt: the time since began (the load and Δ2's
// model) and Δ2's (delta2Step, its parameters named by name); "" on graphs
// under LineNodes nodes (the model's own bound timings are not worth it)
// or when their sum is not over long seconds.
func sensitivityLine(gr *laplacian.Graph, tau float64, opt sensitivity.Options, name Names, began time.Time, long float64) string {
	if gr.N() < LineNodes {
		return ""
	}
	st := delta2Step(gr, tau, opt, name)
	so := time.Since(began).Seconds()
	if so+st.Seconds <= long {
		return ""
	}
	return fmt.Sprintf("estimated %s for the sensitivity (%s so far, %s %s: %s)",
		human(so+st.Seconds), human(so), st.Step, human(st.Seconds), st.Model)
}

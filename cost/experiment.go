package cost

import (
	"fmt"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"
)

// AnswerExperiment models the private-answer experiment on sim's graph
// and partition over taus and epsilons ε: per τ the trials
// (AnswerTrialSecondsAt, the step rate measured once for every τ), each τ
// and ε's calibration (privacy.CalibrationSeconds) and each ε's routed
// ceiling once (forecast.RoutedCeilingSeconds). ok is false where the
// trials are not priced (a dense action: a small graph, quick).
func AnswerExperiment(sim forecast.Simulation, taus []float64, epsilons int) (steps []Step, ok bool) {
	step := TrialStepSeconds(sim.Graph) // once, for every τ
	for _, tau := range taus {
		per, how := AnswerTrialSecondsAt(sim.Graph, tau, sim.Trials, step)
		if per == 0 {
			return nil, false
		}
		steps = append(steps, Step{Step: fmt.Sprintf("trials at τ = %g", tau), Seconds: float64(sim.Trials) * per,
			Model: fmt.Sprintf("%d trials at %.3g s: %s", sim.Trials, per, how)})
	}
	eps := float64(epsilons)
	return append(steps,
		Step{Step: "calibrations", Seconds: float64(len(taus)) * eps * privacy.CalibrationSeconds(sim.Graph, sim.Partition)},
		Step{Step: "ceilings", Seconds: eps * forecast.RoutedCeilingSeconds(sim.Graph.N(), len(community.Sizes(sim.Partition)))}), true
}

// GraphExperimentTrials models the graph experiment's trials on sim's
// graph: per τ of taus, points points (its ε, or one with a fixed σ) of
// sim.Trials trials at PerNodeTrialSecondsAt, the step rate measured once
// for every τ. ok is false where they are not priced (a dense action).
func GraphExperimentTrials(sim forecast.Simulation, taus []float64, points int) (steps []Step, ok bool) {
	step := TrialStepSeconds(sim.Graph) // once, for every τ
	for _, tau := range taus {
		per, how := PerNodeTrialSecondsAt(sim.Graph, tau, sim.Trials, step)
		if per == 0 {
			return nil, false
		}
		steps = append(steps, Step{Step: fmt.Sprintf("trials at τ = %g", tau), Seconds: float64(points*sim.Trials) * per,
			Model: fmt.Sprintf("%d ε × %d trials at %.3g s: %s", points, sim.Trials, per, how)})
	}
	return steps, true
}

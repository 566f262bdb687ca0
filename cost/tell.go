package cost

import (
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TellSensitivity says sensitivityLine's estimate, when it makes one.
func TellSensitivity(say func(string), gr *laplacian.Graph, tau float64, opt sensitivity.Options, name Names, began time.Time, long float64) {
	if line := sensitivityLine(gr, tau, opt, name, began, long); line != "" {
		say(line)
	}
}

// TellAnswerExperiment says answerExperimentLine's estimate, when it
// makes one.
func TellAnswerExperiment(say func(string), sim forecast.Simulation, taus []float64, epsilons int, began time.Time, long float64) {
	if line := answerExperimentLine(sim, taus, epsilons, began, long); line != "" {
		say(line)
	}
}

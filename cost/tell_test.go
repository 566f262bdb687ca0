package cost

import (
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestTellSaysTheLineOnly: the tell functions say their line exactly when
// the line functions make one — nothing on a graph below LineNodes or an
// answer experiment without a partition.
func TestTellSaysTheLineOnly(t *testing.T) {
	g, part, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	say := func(s string) { said = append(said, s) }
	began := time.Now()
	TellSensitivity(say, g, 1, sensitivity.Options{}, nil, began, 0)
	if want := sensitivityLine(g, 1, sensitivity.Options{}, nil, began, 0); (want == "") != (len(said) == 0) {
		t.Errorf("sensitivity: said %q, line %q", said, want)
	}
	said = nil
	sim := forecast.Simulation{Graph: g, Partition: part, Trials: 10}
	TellAnswerExperiment(say, sim, []float64{1}, 1, began, 0)
	if want := answerExperimentLine(sim, []float64{1}, 1, began, 0); (want == "") != (len(said) == 0) || (want != "" && said[0] != want) {
		t.Errorf("answer experiment: said %q, line %q", said, want)
	}
}

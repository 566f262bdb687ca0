package cost

import (
	"fmt"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestAnswerExperiment: each τ's trials are priced by the account their
// model gives — trials × AnswerTrialFactor per-node trials of 3.2 column
// actions of K·(2|E|+n) steps at the rate it states, and 0.32 µs a node —
// at one rate for every τ (measured once); then every τ and ε's
// calibration and every ε's ceiling by their models, exactly. Independent
// of the machine's load: the rate is read back from the model.
func TestAnswerExperiment(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, g.N())
	for v := range part {
		part[v] = v % 80 / 20
	}
	taus := []float64{1, 2}
	steps, ok := answerExperimentSteps(forecast.Simulation{Graph: g, Partition: part, Trials: 1000}, taus, 3)
	if !ok || len(steps) != 4 {
		t.Fatalf("steps %+v (ok %v): want two τ's trials, the calibrations and the ceilings", steps, ok)
	}
	var rates []float64
	for i, tau := range taus {
		st := steps[i]
		var per, actions, ns, nodeMicros float64
		var trials, factor, K int
		_, err := fmt.Sscanf(st.Model, "%d trials at %g s: %d per-node trials' time: %g column actions of K = %d at this machine's %g ns a step and %g µs a node",
			&trials, &per, &factor, &actions, &K, &ns, &nodeMicros)
		if err != nil {
			t.Fatalf("τ = %g: %q: %v", tau, st.Model, err)
		}
		model := float64(factor) * (actions*float64(K)*float64(2*g.NumEdges()+g.N())*ns*1e-9 + nodeMicros*1e-6*float64(g.N()))
		// Each figure is told to three digits: 0.5 % each.
		if st.Step != fmt.Sprintf("trials at τ = %g", tau) || trials != 1000 || factor != AnswerTrialFactor ||
			math.Abs(per-model) > 0.01*model || math.Abs(st.Seconds-1000*per) > 0.005*st.Seconds {
			t.Errorf("τ = %g: %+v; by its account a trial is %g s", tau, st, model)
		}
		rates = append(rates, ns)
	}
	if rates[0] != rates[1] {
		t.Errorf("the τ's trials priced at %g and %g ns a step: want one rate, measured once", rates[0], rates[1])
	}
	if cal := 2 * 3 * privacy.CalibrationSeconds(g, part); steps[2].Step != "calibrations" || steps[2].Seconds != cal {
		t.Errorf("calibrations %+v, want %g s", steps[2], cal)
	}
	if ceil := 3 * forecast.CountCeilingWork(g, part).Seconds; steps[3].Step != "ceilings" || steps[3].Seconds != ceil {
		t.Errorf("ceilings %+v, want %g s", steps[3], ceil)
	}
	if dense, _, _ := laplacian.Generate("complete:n=20"); dense != nil {
		if _, ok := answerExperimentSteps(forecast.Simulation{Graph: dense, Partition: make([]int, 20), Trials: 10}, taus, 1); ok {
			t.Error("a dense action priced")
		}
	}
}

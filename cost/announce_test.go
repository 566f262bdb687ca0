package cost

import (
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
)

// SayPlan says the plan's sum first (ended by its tail), then a line for
// each step over the threshold and none for the others; under a
// threshold above the sum it says nothing. It returns Plan's estimate.
func TestSayPlanSumThenLongSteps(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=40,cols=40")
	if err != nil {
		t.Fatal(err)
	}
	w := PlanWork{Simulation: forecast.Simulation{Graph: g, Tau: 1, Trials: 50}, Epsilons: []float64{1}, Modes: []string{forecast.ModePerNode, forecast.ModeAnswer}}
	var said []string
	e, err := SayPlan(w, 0, time.Hour, " — tail", func(l string) { said = append(said, l) })
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, s := range e.Steps {
		if s.Seconds > 0 {
			long++
		}
	}
	if len(said) != 1+long || !strings.HasSuffix(said[0], ") — tail") || !strings.HasPrefix(said[0], "estimated ") {
		t.Fatalf("said %q: want the sum ending in its tail, then %d step lines", said, long)
	}
	for _, l := range said[1:] {
		if !strings.HasPrefix(l, "estimated ") || strings.Contains(l, "tail") {
			t.Errorf("a step's line %q", l)
		}
	}
	said = nil
	if _, err := SayPlan(w, time.Duration((e.Seconds+1)*float64(time.Second)), time.Hour, "", func(l string) { said = append(said, l) }); err != nil {
		t.Fatal(err)
	}
	if len(said) != 0 {
		t.Errorf("every step under the threshold, yet said %q", said)
	}
}

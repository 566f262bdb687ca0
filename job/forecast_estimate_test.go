package job

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/answer"
)

// TestForecastRoundSeconds checks the model of a forecast round against
// the rule it models (forecast.Simulation's TimeBudget and MinTrials): all
// trials when they fit in the round's share of the budget, and otherwise
// the share or the first min(20, trials) trials, whichever is longer, plus
// the trial still running; never more than all the trials.
func TestForecastRoundSeconds(t *testing.T) {
	share := forecastBudget(0).Seconds() / 4 // 2 s shared by 4 rounds
	for _, c := range []struct {
		trials            int
		perTrial, release float64
		want              float64
	}{
		{100, 0.001, 0, 0.1},         // 100 trials in 0.1 s: the budget does not bind
		{100, 0.02, 0, share + 0.02}, // 2 s of trials: cut at the share, one more running
		{100, 0.1, 0, 2.1},           // the first 20 trials (2 s) outlast the share
		{10, 1, 0, 10},               // never more than all the trials
		{100, 0.1, 400, 5.1},         // the budget is 5% of the release's 400 s: 5 s a round, then one running
		{100, 0.01, 400, 1},          // all 100 trials (1 s) fit in the round's 5 s
	} {
		if got := ForecastRoundSeconds(c.trials, c.perTrial, c.release); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ForecastRoundSeconds(%d, %g, %g) = %g, want %g", c.trials, c.perTrial, c.release, got, c.want)
		}
	}
	// The dry run's forecasts add up as the steps say.
	steps := DryRunForecasts(100, 0.1, 0.1, 0)
	round := ForecastRoundSeconds(100, 0.1, 0)
	if len(steps) != 3 || steps[0].Seconds != ForecastRounds*round || steps[1].Seconds != round || steps[2].Seconds != 9*ForecastRounds*round {
		t.Errorf("DryRunForecasts: %+v (a round %g s)", steps, round)
	}
	// The private answer's round at its own trial time, the rest unchanged.
	if a := DryRunForecasts(100, 0.1, 1, 0); a[1].Seconds != ForecastRoundSeconds(100, 1, 0) || a[0] != steps[0] || a[2] != steps[2] {
		t.Errorf("with the answer's trials at 1 s: %+v", a)
	}
}

// TestDryRunSaysItsForecastsEstimate: the dry run's first forecast, once a
// trial a worker has finished, tells the modelled time of the dry run's
// forecasts at the time a trial took so far — once, and only when it is
// over 10 s.
func TestDryRunSaysItsForecastsEstimate(t *testing.T) {
	var said []string
	p := &ReleasePlan{Spec: ReleaseSpec{ForecastTrials: 100, DryRun: true}, env: Env{Say: func(l string) { said = append(said, l) }}}
	p.sayForecastEstimate(0)(30, 2)
	if len(said) != 1 {
		t.Fatalf("said %q, want one estimate line", said)
	}
	var total float64
	for _, s := range DryRunForecasts(100, 30, 30, 0) {
		total += s.Seconds
	}
	want := "estimated " + answer.HumanDuration(time.Duration(total*float64(time.Second))) + " for the dry run's forecasts (forecast trials "
	if !strings.HasPrefix(said[0], want) || !strings.HasSuffix(said[0], "at 30 s a trial, the first 2)") {
		t.Errorf("line %q, want it to start %q", said[0], want)
	}
	said = nil
	p.sayForecastEstimate(0)(0.001, 2)
	if len(said) != 0 {
		t.Errorf("a quick forecast said %q", said)
	}
}

// TestRoundsProgress: a forecast's rounds (each a simulation whose count
// restarts) report as one step of rounds·trials, never reaching its total
// before end — so a progress log goes on through every round — and the
// first trials are timed once, in the first round, when two trials a
// worker after the first have finished.
func TestRoundsProgress(t *testing.T) {
	type call struct{ done, total int }
	var got []call
	var firsts []int
	workers := max(1, runtime.GOMAXPROCS(0))
	report, end := roundsProgress(func(d, n int) { got = append(got, call{d, n}) }, 5, 10, func(_ float64, timed int) { firsts = append(firsts, timed) })
	for round := range 3 {
		for d := 1; d <= 10; d++ {
			report(d, 10)
		}
		if last := got[len(got)-1]; last != (call{min(round*10+10, 49), 50}) {
			t.Errorf("round %d ends at %v", round, last)
		}
	}
	for _, c := range got {
		if c.total != 50 || c.done >= 50 {
			t.Fatalf("reported %v before the end", c)
		}
	}
	end()
	if last := got[len(got)-1]; last != (call{50, 50}) {
		t.Errorf("end reported %v", last)
	}
	if len(firsts) != 1 || firsts[0] != min(2*workers+1, 10) {
		t.Errorf("first trials told %v, want once at %d", firsts, min(2*workers+1, 10))
	}
}

// TestSayStepEstimates: the evidence test's estimate is told once, when
// its first block of 32 draws is done, as its draws at that block's pace
// (from the recovery's end), only when over 10 s; every report is passed
// on.
func TestSayStepEstimates(t *testing.T) {
	var said []string
	var passed int
	p := sayStepEstimates(func(string, int, int) { passed++ }, func(l string) { said = append(said, l) })
	p("recovery", 0, 1)
	p("recovery", 1, 1)
	time.Sleep(32 * 60 * time.Millisecond) // 199 draws at ≥ 60 ms: over 10 s
	for d := 1; d <= 33; d++ {
		p("evidence test", d, 199)
		if d < 32 && len(said) != 0 {
			t.Fatalf("told at draw %d, before its block was done: %q", d, said)
		}
	}
	if passed != 35 || len(said) != 1 || !strings.HasPrefix(said[0], "estimated ") || !strings.Contains(said[0], "for the evidence test (199 null draws at ") {
		t.Errorf("passed %d, said %q", passed, said)
	}
	said = nil
	p = sayStepEstimates(nil, func(l string) { said = append(said, l) })
	p("recovery", 1, 1)
	for d := 1; d <= 32; d++ {
		p("evidence test", d, 199) // at once: far under 10 s
	}
	if len(said) != 0 {
		t.Errorf("a quick test said %q", said)
	}
}

// TestMonotone: counts that go back are passed on as the largest so far.
func TestMonotone(t *testing.T) {
	var got []int
	p := monotone(func(d, _ int) { got = append(got, d) })
	for _, d := range []int{11, 5, 20, 19, 900} {
		p(d, 900)
	}
	if want := []int{11, 11, 20, 20, 900}; !slices.Equal(got, want) {
		t.Errorf("passed %v, want %v", got, want)
	}
	if monotone(nil) != nil {
		t.Error("monotone(nil) is not nil")
	}
}

// TestTrialSeconds: the trials after the first are priced at their pace,
// the first's time (setup and its block's draw) shared by its block of
// min(32, trials); one trial finished is its own time.
func TestTrialSeconds(t *testing.T) {
	for _, c := range []struct {
		first, last float64
		k, trials   int
		want        float64
	}{
		{3.2, 5.2, 5, 100, 0.5 + 0.1}, // 4 trials in 2 s after the first; 3.2 s over a block of 32
		{3.2, 5.2, 5, 8, 0.5 + 0.4},   // a block of 8
		{2, 2, 1, 100, 2},             // one trial: its time
	} {
		if got := TrialSeconds(c.first, c.last, c.k, c.trials); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("TrialSeconds(%g, %g, %d, %d) = %g, want %g", c.first, c.last, c.k, c.trials, got, c.want)
		}
	}
}

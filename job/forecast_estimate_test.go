package job

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
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
	steps := DryRunForecasts(100, 0.1, 0)
	round := ForecastRoundSeconds(100, 0.1, 0)
	if len(steps) != 3 || steps[0].Seconds != ForecastRounds*round || steps[1].Seconds != round || steps[2].Seconds != 9*ForecastRounds*round {
		t.Errorf("DryRunForecasts: %+v (a round %g s)", steps, round)
	}
}

// TestDryRunSaysItsForecastsEstimate: the dry run's first forecast, once a
// trial a worker has finished, tells the modelled time of the dry run's
// forecasts at the time a trial took so far — once, and only when it is
// over 10 s; the progress it wraps is still told every count.
func TestDryRunSaysItsForecastsEstimate(t *testing.T) {
	var said []string
	p := &ReleasePlan{Spec: ReleaseSpec{ForecastTrials: 100, DryRun: true}, env: Env{Say: func(l string) { said = append(said, l) }}}
	var seen []int
	inner := func(done, total int) { seen = append(seen, done) }
	workers := max(1, runtime.GOMAXPROCS(0))
	// Trials that took 30 s each so far (their start 30·workers s ago).
	wrap := p.sayForecastEstimate(inner, 0, time.Now().Add(-time.Duration(30*workers)*time.Second))
	for d := 1; d <= workers+2; d++ {
		wrap(d, 100)
	}
	if len(seen) != workers+2 {
		t.Errorf("the wrapped progress saw %v", seen)
	}
	if len(said) != 1 {
		t.Fatalf("said %q, want one estimate line", said)
	}
	var total float64
	for _, s := range DryRunForecasts(100, 30, 0) {
		total += s.Seconds
	}
	if !strings.HasPrefix(said[0], "estimated ") || !strings.Contains(said[0], "forecast by source mass") || !strings.Contains(said[0], fmt.Sprintf("the first %d)", workers)) {
		t.Errorf("line %q (the model: %g s)", said[0], total)
	}
	// A quick forecast says nothing.
	said = nil
	wrap = p.sayForecastEstimate(nil, 0, time.Now())
	for d := 1; d <= workers; d++ {
		wrap(d, 100)
	}
	if len(said) != 0 {
		t.Errorf("a quick forecast said %q", said)
	}
}

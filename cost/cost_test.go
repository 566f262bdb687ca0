package cost

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
)

// TestForecastRoundSeconds checks the model of a forecast round against
// the rule it models (forecast.Simulation's TimeBudget and MinTrials): all
// trials when they fit in the round's share of the budget, and otherwise
// the share or the first min(20, trials) trials, whichever is longer, plus
// the trial still running; never more than all the trials.
func TestForecastRoundSeconds(t *testing.T) {
	share := ForecastBudget(0).Seconds() / 4 // 2 s shared by 4 rounds
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
		if got := forecastRoundSeconds(c.trials, c.perTrial, c.release); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ForecastRoundSeconds(%d, %g, %g) = %g, want %g", c.trials, c.perTrial, c.release, got, c.want)
		}
	}
	// The dry run's forecasts add up as the steps say: the answer's round,
	// the unit forecast's rounds, the other masses' rounds.
	steps := dryRunForecasts(100, 0.1, 0.1, 0, 0, false)
	round := forecastRoundSeconds(100, 0.1, 0)
	if len(steps) != 3 || steps[0].Seconds != round || steps[1].Seconds != ForecastRounds*round ||
		steps[2].Seconds != float64((len(forecast.MassGrid())-1)*MassRounds)*round {
		t.Errorf("DryRunForecasts: %+v (a round %g s)", steps, round)
	}
	// A stated mass: the curve simulates every mass, the unit one too.
	if st := dryRunForecasts(100, 0.1, 0.1, 0, 0, true); st[2].Seconds != float64(len(forecast.MassGrid())*MassRounds)*round {
		t.Errorf("with a stated mass: %+v", st)
	}
	// The private answer's round at its own trial time, the rest unchanged.
	if a := dryRunForecasts(100, 0.1, 1, 0, 0, false); a[0].Seconds != forecastRoundSeconds(100, 1, 0) || a[1] != steps[1] || a[2] != steps[2] {
		t.Errorf("with the answer's trials at 1 s: %+v", a)
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

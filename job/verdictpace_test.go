package job

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/cost"
)

// TestVerdictPaceCountsTheSetupOnce (issue 79): locate's verdict forecast
// reports a block of trials at once after its pool's setup. Replayed on a
// clock of the e-mail Enron run (29 s to the first block of 32, then 3 s
// a block), the pace is told once, at the second report, as the marginal
// pace (3/32 s a trial) after a setup paid once, and the line prices the
// modelled 2 rounds of 100 trials at it (≈ 45 s; the run took 67 s for 4
// rounds). On c2bfb18 the first block's whole time was charged to each
// block of 32 (cost.TrialSeconds: 0.906 s a trial, 3 min 1 s). Every
// report is passed on, in order.
func TestVerdictPaceCountsTheSetupOnce(t *testing.T) {
	clock := 0.0
	var passed []int
	var setup, per float64
	var timed, told int
	report := verdictPace(func(done, _ int) { passed = append(passed, done) }, func() float64 { return clock },
		func(s, p float64, k int) { setup, per, timed, told = s, p, k, told+1 })
	clock = 29
	report(32, 100)
	clock = 32
	report(64, 100)
	clock = 35
	report(96, 100)
	report(100, 100)
	report(32, 100) // the next round
	if told != 1 || timed != 64 {
		t.Fatalf("told %d times, at %d trials; want once, at the second report (64)", told, timed)
	}
	if want := 3.0 / 32; math.Abs(per-want) > 1e-12 || math.Abs(setup-(29-32*want)) > 1e-12 {
		t.Errorf("setup %g s, %g s a trial; want %g and %g", setup, per, 29-32*want, want)
	}
	modelled := setup + cost.ForecastRounds*100*per
	old := cost.ForecastRounds * 100 * cost.TrialSeconds(29, 29, 32, 100)
	if !(modelled < 67*1.5 && modelled > 67/1.5) || !(old > 67*1.5) {
		t.Errorf("modelled %g s (TrialSeconds: %g s) for a forecast that took 67 s", modelled, old)
	}
	if want := []int{32, 64, 96, 100, 32}; len(passed) != len(want) {
		t.Errorf("reports passed on %v, want %v", passed, want)
	}
}

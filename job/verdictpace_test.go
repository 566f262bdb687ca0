package job

import (
	"testing"

	"github.com/graphcloak/graphcloak/cost"
)

// TestVerdictPaceCountsTheSetupOnce (issue 79): locate's verdict forecast
// builds its pool (the setup), then draws a block of 32 trials' readings
// and recovers them, its first trials finishing within milliseconds of
// each other. Replayed on the clock of the e-mail Enron run (load 22: the
// first trial at 28.9 s, the first 32 by 28.95 s, each later block 2.8 s),
// the pace is told once, a block after the first report, as that block's
// pace (2.8/32 s a trial) after a setup paid once, and the line prices the
// modelled 2 rounds of 100 trials within 1.5× of the run's 4 rounds (67 s
// from the forecast's start). c2bfb18 told it at the 5th trial with
// cost.TrialSeconds: 0.904 s a trial, 3 min 1 s (the run's own line said
// 3 min 0 s). Every report is passed on, in order.
func TestVerdictPaceCountsTheSetupOnce(t *testing.T) {
	clock := 0.0
	var passed []int
	var setup, per float64
	var timed, told int
	report := verdictPace(func(done, _ int) { passed = append(passed, done) }, func() float64 { return clock },
		func(s, p float64, k int) { setup, per, timed, told = s, p, k, told+1 })
	var want []int
	step := func(at float64, done int) {
		clock = at
		report(done, 100)
		want = append(want, done)
	}
	for d := 1; d <= 32; d++ {
		step(28.9+0.0015*float64(d), d) // the first block: together
	}
	for d := 33; d <= 100; d++ {
		step(28.95+2.8*float64((d-1)/32)+0.0015*float64((d-1)%32), d)
	}
	step(70, 5) // the next round
	if told != 1 || timed != 33 {
		t.Fatalf("told %d times, at %d trials; want once, a block after the first report (33)", told, timed)
	}
	modelled := setup + cost.ForecastRounds*100*per
	old := cost.ForecastRounds * 100 * cost.TrialSeconds(28.9015, 28.9075, 5, 100)
	if !(setup > 28 && setup < 29) || !(modelled < 67*1.5 && modelled > 67/1.5) || !(old > 67*1.5) {
		t.Errorf("setup %g s, %g s a trial: %g s modelled (the first 5 trials' pace: %g s) for a forecast that took 67 s", setup, per, modelled, old)
	}
	if len(passed) != len(want) {
		t.Errorf("%d reports passed on, want %d", len(passed), len(want))
	}
	for i := range min(len(passed), len(want)) {
		if passed[i] != want[i] {
			t.Fatalf("report %d passed on as %d, want %d", i, passed[i], want[i])
		}
	}
}

package cost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// A dry run's forecasts of 100 trials, a per-node trial 0.02 s and the
// private answer's 0.1 s, its calibration 1 s, for a release whose Δ2 is
// modelled at 400 s: the forecasts' budget is 5% of it, 5 s a round of
// four. A per-node round is all its 100 trials (2 s, within the share);
// the answer's stops at the share, 5 s, plus the trial running (0.1 s),
// then its calibration; the unit forecast takes ForecastRounds (2)
// rounds, the curve 8 masses of MassRounds (3).
func TestDryRunForecastsWorked(t *testing.T) {
	var b strings.Builder
	for _, st := range dryRunForecasts(100, 0.02, 0.1, 1, 400, false) {
		fmt.Fprintf(&b, "%s: %.2f s\n", st.Step, st.Seconds)
	}
	want := "private-answer forecast: 6.10 s\nforecast trials: 4.00 s\nforecast by source mass: 48.00 s\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}

// A private-answer trial is priced at AnswerTrialFactor per-node trials
// at the same step rate.
func TestAnswerTrialIsFivePerNode(t *testing.T) {
	g, _, err := laplacian.Generate("path:n=5000")
	if err != nil {
		t.Fatal(err)
	}
	per, _ := PerNodeTrialSeconds(g, 1, 100, 2e-10)
	if a, _ := answerTrialSecondsAt(g, 1, 100, 2e-10); !(per > 0) || a != AnswerTrialFactor*per {
		t.Errorf("answer trial %g, not %d per-node trials of %g", a, AnswerTrialFactor, per)
	}
}

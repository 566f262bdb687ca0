package cost_test

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/cost"
)

// A load of 10⁵ nodes, 10⁶ relationships and 10⁵ readings, its files read
// in 2 s: the write priced at LoadWriteMicros a row (1.2·10⁶ × 28 µs =
// 33.6 s), as the line before the write says it.
func ExampleLoad() {
	e := cost.Load("edges.csv", 100_000, 1_000_000, 100_000, 2*time.Second, time.Now())
	fmt.Println(cost.Line("the load", e.Seconds, e.Steps))
	// Output: estimated 36 s for the load (read the files 2.0 s, write to Neo4j 34 s)
}

// A dry run's forecasts of 100 trials, a per-node trial 0.02 s and the
// private answer's 0.1 s, its calibration 1 s, for a release whose Δ2 is
// modelled at 400 s: the forecasts' budget is 5% of it, 5 s a round of
// four. A per-node round is all its 100 trials (2 s, within the share);
// the answer's stops at the share, 5 s, plus the trial running (0.1 s),
// then its calibration; the unit forecast takes ForecastRounds (2)
// rounds, the curve 8 masses of MassRounds (3).
func ExampleDryRunForecasts() {
	for _, st := range cost.DryRunForecasts(100, 0.02, 0.1, 1, 400, false) {
		fmt.Printf("%s: %.2f s\n", st.Step, st.Seconds)
	}
	// Output:
	// private-answer forecast: 6.10 s
	// forecast trials: 4.00 s
	// forecast by source mass: 48.00 s
}

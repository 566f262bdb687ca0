package local

import (
	"fmt"
	"strconv"
)

// MissingNote says what the sensors that have not reported do to a
// local release, "" when every sensor has: how many are missing and
// their share; that locate recovers from the rows that reported (the
// operator restricted to them, every node still a candidate source);
// and the plan that forecasts the release at that share — the collector
// holds the order, not the graph, so it names the forecast rather than
// computing it. A forecast assumes the sensors are missing at random,
// independent of where the source is. With no report at all the release
// holds nothing to locate from.
func MissingNote(o Order, p Progress) string {
	missing := p.Expected - p.Reported
	switch {
	case missing <= 0:
		return ""
	case p.Reported == 0:
		return fmt.Sprintf("no sensor has reported (%d missing): the release holds no value and locate refuses it", missing)
	}
	q := float64(missing) / float64(p.Expected)
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return fmt.Sprintf("%d of %d sensors missing (%.3g%%): locate recovers from the %d that reported; "+
		"the forecast at this share, sensors missing at random and independent of the source: "+
		"graphcloak plan --graph GRAPH --local --tau %s --alpha %s --epsilon %s --delta %s --missing %.4g"+
		"  (add --sensor-policy FILE when the sensors' policy is not keygen's default: plan forecasts no σ below its floor)",
		missing, p.Expected, 100*q, p.Reported, g(o.Tau), g(o.Alpha), g(o.Epsilon), g(o.Delta), q)
}

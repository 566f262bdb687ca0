package job

import (
	"fmt"
	"strings"

	"github.com/graphcloak/graphcloak/forecast"
)

// LocalNoAnswer is what a local release's plan says of the private
// answer: each sensor adds its own noise, so only the per-node mode is
// forecast.
const LocalNoAnswer = "local release: each sensor adds its own noise, so only the per-node mode is forecast; the private answer is not offered (it needs the raw readings in one place)"

// localReport is ForecastReport.Local of a local release's plan
// (ForecastSpec.Local): the central private answer's rows on the same
// graph when rep forecast them (what giving up local noise would buy),
// and, with missing > 0, the sensors a fraction missing of n leaves out.
func localReport(rep *ForecastReport, missing float64, n int) string {
	var central []string
	for _, f := range rep.Result.Forecasts {
		if f.Mode == forecast.ModeAnswer {
			central = append(central, fmt.Sprintf("%.2f at ε = %g", f.CommunityAccuracy, f.Epsilon))
		}
	}
	local := LocalNoAnswer
	if len(central) > 0 {
		local = "local release: each sensor adds its own noise; the private answer is not offered locally (it needs the raw readings in one place). " +
			"The central private answer on this graph (its rows below, not a local release) names the right community " + strings.Join(central, ", ")
	}
	if missing > 0 {
		k := forecast.MissingCount(n, missing)
		local += "\n" + fmt.Sprintf("missing sensors: %d of %d (%.3g%%), missing at random, independent of the source; the forecast locates from the %d that report", k, n, 100*missing, n-k)
	}
	return local
}

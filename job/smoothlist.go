package job

import (
	"math"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// SmoothList is the smoothings a forecast compares, as given: "0" (none),
// τ′ values (comma-separated) or "auto" (the τ′ > 0 a release's automatic
// smoothing chooses among, SmoothCandidates).
type SmoothList string

// Taus are the list's τ′ > 0 at τ (ForecastSpec.Smooth): auto's are
// m·τ for each candidate m > 0; given values must be finite and ≥ 0, and
// 0 is dropped (the unsmoothed release is forecast anyway).
func (l SmoothList) Taus(tau float64) ([]float64, error) {
	var out []float64
	spec := strings.TrimSpace(string(l))
	if spec == "auto" {
		for _, m := range SmoothCandidates {
			if m > 0 {
				out = append(out, m*tau)
			}
		}
		return out, nil
	}
	for _, p := range strings.Split(spec, ",") {
		sm, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(sm >= 0) || math.IsInf(sm, 0) {
			return nil, errkind.Inputf("%s must be auto or τ′ values, finite and ≥ 0 (comma-separated), got %q", ParamSmooth, spec)
		}
		if sm > 0 {
			out = append(out, sm)
		}
	}
	return out, nil
}

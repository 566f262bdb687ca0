package job

import (
	"math"
	"strconv"

	"github.com/graphcloak/graphcloak/errkind"
)

// ParseSmooth reads a release's smoothing as given: "" (none), "auto"
// (ReleaseSpec.SmoothAuto) or a finite τ′ ≥ 0 (ReleaseSpec.Smooth).
func ParseSmooth(s string) (smooth float64, auto bool, err error) {
	switch s {
	case "":
		return 0, false, nil
	case "auto":
		return 0, true, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, false, errkind.Inputf("%s must be auto or a finite τ′ ≥ 0, got %q", ParamSmooth, s)
	}
	return v, false, nil
}

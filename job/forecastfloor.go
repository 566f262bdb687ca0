package job

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"
)

// SensorFloor is what a local release's plan knows of the sensors'
// policy: their σ floor (sensor.Policy.SigmaFloor), below which a sensor
// refuses an order, and where that policy came from.
type SensorFloor struct {
	SigmaFloor float64 `json:"sigmaFloor"`
	Policy     string  `json:"policy"`
	// MaxEpsilon is the largest ε (at the plan's δ, to 3 significant
	// digits, rounded down) whose order's σ, as epoch open calibrates it,
	// is at or above the floor; Refused the plan's ε that are not.
	MaxEpsilon float64   `json:"maxEpsilon"`
	Refused    []float64 `json:"refusedEpsilons,omitempty"`
}

// applyFloor leaves out of a local plan the per-node rows whose σ is below
// the sensors' floor (the sensors would refuse their orders: nothing is
// released) and says the largest ε the sensors accept.
func (spec *ForecastSpec) applyFloor(rep *ForecastReport) error {
	fl := spec.SensorFloor
	if fl == nil || rep.Delta2 == nil || len(rep.Result.Forecasts) == 0 {
		return nil
	}
	max, err := spec.floorCap(rep.Delta2)
	if err != nil {
		return err
	}
	out := *fl
	out.MaxEpsilon = *max
	res := rep.Result
	res.Forecasts = slices.DeleteFunc(res.Forecasts, func(f forecast.Forecast) bool {
		refused := f.Mode == forecast.ModePerNode && f.Sigma < fl.SigmaFloor
		if refused && !slices.Contains(out.Refused, f.Epsilon) {
			out.Refused = append(out.Refused, f.Epsilon)
		}
		return refused
	})
	rep.SensorFloor = &out
	rep.Local += "\n" + out.say()
	return nil
}

// floorCap is the largest ε the sensors accept (SensorFloor.MaxEpsilon)
// for a release of Δ2 delta2, as epoch open calibrates its σ at the
// plan's δ; nil when the plan keeps to no floor (not local, no policy,
// no Δ2). The per-node target search goes no further.
func (spec *ForecastSpec) floorCap(delta2 *float64) (*float64, error) {
	fl := spec.SensorFloor
	if !spec.Local || fl == nil || delta2 == nil {
		return nil, nil
	}
	n, mech, delta := spec.Simulation.Graph.N(), spec.Simulation.Mechanism, spec.Simulation.Delta
	orderSigma := func(eps float64) (float64, error) {
		cal, err := privacy.CalibrateRelease(*delta2, eps, delta, n, mech)
		return cal.Sigma, err
	}
	max, err := largestAccepted(orderSigma, fl.SigmaFloor)
	return &max, err
}

func (s SensorFloor) say() string {
	line := fmt.Sprintf("the sensors (%s) refuse σ below %.4g: they accept ε ≤ %.3g at this δ", s.Policy, s.SigmaFloor, s.MaxEpsilon)
	if len(s.Refused) > 0 {
		eps := make([]string, len(s.Refused))
		for i, e := range s.Refused {
			eps[i] = fmt.Sprintf("%g", e)
		}
		line += "; ε = " + strings.Join(eps, ", ") + " not forecast (σ below the floor: the sensors would refuse the order)"
	}
	return line
}

// largestAccepted is the largest ε, to 3 significant digits rounded down,
// whose σ(ε) (decreasing in ε) is at least floor; 0 when none above
// 10^-6 is.
func largestAccepted(sigma func(float64) (float64, error), floor float64) (float64, error) {
	ok := func(eps float64) (bool, error) {
		s, err := sigma(eps)
		return s >= floor, err
	}
	lo, hi := 1e-6, 1.0
	if good, err := ok(lo); err != nil || !good {
		return 0, err
	}
	for {
		good, err := ok(hi)
		if err != nil {
			return 0, err
		}
		if !good || hi > 1e6 {
			break
		}
		lo, hi = hi, 2*hi
	}
	for range 60 {
		mid := (lo + hi) / 2
		good, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if good {
			lo = mid
		} else {
			hi = mid
		}
	}
	scale := math.Pow(10, math.Floor(math.Log10(lo))-2)
	return math.Floor(lo/scale) * scale, nil
}

package privacy

import (
	"context"
	"fmt"
	"math"
	"runtime"
)

// CalibrationRecord is a calibration with the public weights its
// mechanism needs, so that a cache can store it and RestoreCalibration
// rebuild it without calibrating again (the envelope's calibration takes
// minutes on graphs of 10⁴–10⁵ nodes at small ε).
type CalibrationRecord struct {
	Calibration AnswerCalibration `json:"calibration"`
	Envelope    *EnvelopeWeights  `json:"envelope,omitempty"`
}

// EnvelopeWeights are the community-envelope mechanism's weights: −ln p_v
// per node on the grid 2^−AnswerScaleBits (A), the floor of the exponents
// and the mass bounds. Everything else — the abstain weights, the
// normalisers, the fallback community, the accuracy — follows from them
// in one sweep, as the calibration derived it.
type EnvelopeWeights struct {
	Floor int64   `json:"floor"`
	Top   float64 `json:"top"`
	Safe  float64 `json:"safe"`
	A     []int64 `json:"a"`
}

// Record returns cal with its mechanism's weights.
func (cal AnswerCalibration) Record() CalibrationRecord {
	rec := CalibrationRecord{Calibration: cal}
	if env := cal.envelope; env != nil {
		rec.Envelope = &EnvelopeWeights{Floor: env.floor, Top: env.top, Safe: env.safe, A: env.a}
	}
	return rec
}

// RestoreCalibration rebuilds on cg the calibration CalibrateAnswer(ctx,
// cg, epsilon, alpha, capDist) returned when rec was recorded, after
// checking that rec fits cg and is that request's. What follows from the
// weights is derived again, not read: the envelope's normalisers, abstain
// weights, fallback and accuracy (one sweep), and the worst loss over
// every edge, exactly; a record whose loss exceeds ε/⌈α⌉ is refused,
// whatever the record says. The calibration is remembered by cg as
// CalibrateAnswer's are.
func RestoreCalibration(ctx context.Context, cg *CommunityGeometry, epsilon, alpha float64, capDist int, rec CalibrationRecord) (AnswerCalibration, error) {
	cal := rec.Calibration
	bad := func(reason string, args ...any) (AnswerCalibration, error) {
		return AnswerCalibration{}, &ArgumentError{Func: "RestoreCalibration", Param: "record", Value: cal.Mechanism, Reason: fmt.Sprintf(reason, args...)}
	}
	n, k := cg.g.N(), cg.k
	switch {
	case cal.Epsilon != epsilon || cal.Alpha != alpha:
		return bad("is for ε = %g, α = %g, not ε = %g, α = %g", cal.Epsilon, cal.Alpha, epsilon, alpha)
	case cal.K != k:
		return bad("is for %d communities, not %d", cal.K, k)
	case capDist != 0 && cal.CapQuarters != 4*capDist:
		return bad("has cap %g, not %d", cal.Cap, capDist)
	case cal.Scale != float64(cal.ScaleNum)/gridOne || cal.Rho != PureRho(epsilon):
		return bad("has a scale or ρ that is not its own")
	}
	switch w := rec.Envelope; {
	case cal.Mechanism == AnswerEnvelope && w != nil:
		if len(w.A) != n || cal.ScaleNum == 0 || cal.ScaleNum > math.MaxInt64 || w.Floor <= 0 {
			return bad("does not fit a geometry of %d nodes", n)
		}
		env := &envelope{cg: cg, e: int64(cal.ScaleNum), a: w.A, floor: w.Floor, top: w.Top, safe: w.Safe}
		mass, own := make([]float64, n), make([]float64, n)
		if err := env.total(ctx, max(1, min(runtime.GOMAXPROCS(0), k)), mass, own); err != nil {
			return AnswerCalibration{}, err
		}
		for s, g := range mass {
			if !(g < 1) {
				return bad("puts a mass of %g ≥ 1 on node %d: no abstain weight is left", g, s)
			}
		}
		cal.Accuracy = env.finish(mass, own)
		cal.envelope, cal.Loss = env, env.loss()
	case (cal.Mechanism == AnswerGeometric || cal.Mechanism == AnswerRandomizedResponse) && w == nil:
		if cal.CapQuarters < 4 || cal.CapQuarters > 4*MaxAnswerCap || cal.Cap != float64(cal.CapQuarters)/4 {
			return bad("has cap %g out of range", cal.Cap)
		}
		cal.Loss, cal.Accuracy = cg.loss(cal.Scale, cal.Cap), cg.meanAccuracy(cal.Scale, cal.Cap)
	default:
		return bad("names no mechanism this version has")
	}
	if perHop := epsilon / math.Ceil(alpha); !(cal.Loss <= perHop) {
		return bad("has a worst loss of %g over the edges, above ε/⌈α⌉ = %g", cal.Loss, perHop)
	}
	cg.remember(calibrationKey{epsilon, alpha, capDist}, cal)
	return cal, nil
}

// CachedCalibration returns the calibration CalibrateAnswer(ctx, cg,
// epsilon, alpha, capDist) made or RestoreCalibration restored on cg, if
// any (no calibration is computed).
func (cg *CommunityGeometry) CachedCalibration(epsilon, alpha float64, capDist int) (AnswerCalibration, bool) {
	return cg.cached(calibrationKey{epsilon, alpha, capDist})
}

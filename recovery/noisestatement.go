package recovery

import (
	"math"

	"github.com/graphcloak/graphcloak/errkind"
)

// Parameters of a sensor-noise statement (NoiseStatement) and the fit
// tolerance it replaces.
const (
	ParamSensorNoise    errkind.Param = "sensor-noise"
	ParamSensorNoiseRMS errkind.Param = "sensor-noise-rms"
	ParamMinSourceMass  errkind.Param = "min-source-mass"
	ParamFitTolerance   errkind.Param = "fit-tolerance"
)

// NoiseStatement is the sensors' Gaussian noise as an operator states
// it, instead of a fit tolerance: relative to the source's mean reading
// μ/n (Nu), or in reading units (RMS) with the smallest source mass the
// guarantee covers (MinSourceMass): ν = RMS·n/MinSourceMass.
type NoiseStatement struct {
	Nu, RMS, MinSourceMass float64
}

// NoiseGiven says which parts of a statement were given, and whether a
// fit tolerance was given beside it.
type NoiseGiven struct {
	Nu, RMS, MinSourceMass, FitTolerance bool
}

// At is the statement's ν on a graph of n nodes (CertifierOptions.SensorNoise;
// 0: no noise stated).
func (s NoiseStatement) At(n int) float64 {
	if s.RMS > 0 {
		return SensorNoiseFromRMS(s.RMS, s.MinSourceMass, n)
	}
	return s.Nu
}

// Check refuses (a usage error) a statement whose given parts are not
// finite and > 0, half of the absolute form, both forms, or one given
// with a fit tolerance (which is derived from the noise). Nothing given
// is no statement, and accepted.
func (s NoiseStatement) Check(given NoiseGiven) error {
	rel, rms, mass := given.Nu, given.RMS, given.MinSourceMass
	finite := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch {
	case !rel && !rms && !mass:
		return nil
	case rel && (rms || mass):
		return errkind.Usagef("give either %s (relative to the mean reading) or %s with %s (reading units), not both", ParamSensorNoise, ParamSensorNoiseRMS, ParamMinSourceMass)
	case rms != mass:
		return errkind.Usagef("%s and %s go together: the rms in reading units is relative to a source of at least that mass", ParamSensorNoiseRMS, ParamMinSourceMass)
	case given.FitTolerance:
		return errkind.Usagef("give either a sensor noise or %s, not both: the tolerance is derived from the noise", ParamFitTolerance)
	case rel && !finite(s.Nu):
		return errkind.Usagef("%s must be a finite number > 0, got %g", ParamSensorNoise, s.Nu)
	case rms && (!finite(s.RMS) || !finite(s.MinSourceMass)):
		return errkind.Usagef("%s and %s must be finite numbers > 0, got %g and %g", ParamSensorNoiseRMS, ParamMinSourceMass, s.RMS, s.MinSourceMass)
	}
	return nil
}

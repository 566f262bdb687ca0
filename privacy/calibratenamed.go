package privacy

import "github.com/graphcloak/graphcloak/errkind"

// CalibrateNamed is CalibrateWithDiscrete of p with the mechanism named
// name, one of MechanismNames: any other name, "default" too (it names
// no calibration), is a usage error naming ParamMechanism; p's values out
// of range are bad input.
func CalibrateNamed(name string, p CalibrationParams) (CalibrationReport, error) {
	m, err := ParseMechanism(name)
	if err != nil || m == MechanismDefault {
		return CalibrationReport{}, errkind.Usagef("%s must be %s, got %q", ParamMechanism, MechanismNames(), name)
	}
	p.Mechanism = m
	r, err := CalibrateWithDiscrete(p)
	if err != nil {
		return CalibrationReport{}, errkind.Input(err)
	}
	return r, nil
}

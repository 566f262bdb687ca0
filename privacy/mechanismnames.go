package privacy

import "slices"

// MechanismUse says which of the table's mechanisms a setting takes, as
// its completion and help list them.
type MechanismUse int

const (
	// AnyMechanism: every mechanism (a calibration, a simulation), sorted
	// by name.
	AnyMechanism MechanismUse = iota
	// ReleasedMechanism: those a release draws (a sampler), in table order.
	ReleasedMechanism
	// SensorMechanism: those a sensor draws (AtSensor), in table order.
	SensorMechanism
)

// MechanismNamesFor lists the names of the mechanisms use takes.
func MechanismNamesFor(use MechanismUse) []string {
	var names []string
	for _, m := range mechanisms {
		switch use {
		case SensorMechanism:
			if m.AtSensor {
				names = append(names, m.Name)
			}
		case ReleasedMechanism:
			if m.Sampler != 0 {
				names = append(names, m.Name)
			}
		default:
			names = append(names, m.Name)
		}
	}
	if use == AnyMechanism {
		slices.Sort(names)
	}
	return names
}

// CalibrationMechanismHelp is the help of a setting that takes every
// mechanism (a calibration, a simulation): the default first, "discrete
// (as release publishes), analytic or classic".
func CalibrationMechanismHelp() string {
	def, _ := ReleaseMechanism(MechanismDefault)
	names := []string{def.Name + " (as release publishes)"}
	for _, m := range MechanismNamesFor(AnyMechanism) {
		if m != def.Name {
			names = append(names, m)
		}
	}
	return orList(names)
}

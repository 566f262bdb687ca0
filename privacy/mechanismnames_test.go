package privacy

import (
	"slices"
	"strings"
	"testing"
)

// The names each use takes are the table's rows with its property: a
// sensor's AtSensor, a release's a sampler (both in table order), any
// use every name sorted; the calibration's help names the release's
// default first and every other mechanism once.
func TestMechanismNamesFor(t *testing.T) {
	var sensor, released, all []string
	for _, m := range Mechanisms() {
		all = append(all, m.Name)
		if m.AtSensor {
			sensor = append(sensor, m.Name)
		}
		if m.Sampler != 0 {
			released = append(released, m.Name)
		}
	}
	slices.Sort(all)
	for use, want := range map[MechanismUse][]string{SensorMechanism: sensor, ReleasedMechanism: released, AnyMechanism: all} {
		if got := MechanismNamesFor(use); !slices.Equal(got, want) {
			t.Errorf("use %d: %q, want %q", use, got, want)
		}
	}
	if len(sensor) == 0 || len(released) == 0 || len(released) == len(all) {
		t.Errorf("the table's uses do not differ: sensor %q, released %q, all %q", sensor, released, all)
	}
	help := CalibrationMechanismHelp()
	def, _ := ReleaseMechanism(MechanismDefault)
	if !strings.HasPrefix(help, def.Name+" (as release publishes)") {
		t.Errorf("help %q does not start with the default %s", help, def.Name)
	}
	for _, n := range all {
		if strings.Count(help, n) != 1 {
			t.Errorf("help %q names %s %d times", help, n, strings.Count(help, n))
		}
	}
}

package recovery

import (
	"math"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// A noise statement is ν as given, or ν = s·n/m from reading units; it
// is refused (usage) when half of the absolute form, both forms, a
// tolerance beside it, or a value not finite and > 0 is given, naming the
// parameters at fault.
func TestNoiseStatement(t *testing.T) {
	if got := (NoiseStatement{Nu: 0.01}).At(34); got != 0.01 {
		t.Errorf("relative: ν = %g, want 0.01", got)
	}
	if got, want := (NoiseStatement{RMS: 0.2, MinSourceMass: 10}).At(34), 0.2*34/10.0; got != want {
		t.Errorf("reading units: ν = %g, want s·n/m = %g", got, want)
	}
	if got := (NoiseStatement{}).At(34); got != 0 {
		t.Errorf("nothing stated: ν = %g, want 0", got)
	}
	flags := func(p errkind.Param) string { return "--" + string(p) }
	for _, c := range []struct {
		name  string
		s     NoiseStatement
		given NoiseGiven
		want  string // "": accepted
	}{
		{"nothing", NoiseStatement{}, NoiseGiven{FitTolerance: true}, ""},
		{"relative", NoiseStatement{Nu: 0.01}, NoiseGiven{Nu: true}, ""},
		{"reading units", NoiseStatement{RMS: 0.1, MinSourceMass: 5}, NoiseGiven{RMS: true, MinSourceMass: true}, ""},
		{"both forms", NoiseStatement{Nu: 0.01, RMS: 0.1}, NoiseGiven{Nu: true, RMS: true}, "give either --sensor-noise (relative to the mean reading) or --sensor-noise-rms with --min-source-mass"},
		{"rms alone", NoiseStatement{RMS: 0.1}, NoiseGiven{RMS: true}, "--sensor-noise-rms and --min-source-mass go together"},
		{"mass alone", NoiseStatement{MinSourceMass: 1}, NoiseGiven{MinSourceMass: true}, "go together"},
		{"with a tolerance", NoiseStatement{Nu: 0.01}, NoiseGiven{Nu: true, FitTolerance: true}, "give either a sensor noise or --fit-tolerance, not both"},
		{"zero", NoiseStatement{}, NoiseGiven{Nu: true}, "--sensor-noise must be a finite number > 0, got 0"},
		{"infinite rms", NoiseStatement{RMS: math.Inf(1), MinSourceMass: 1}, NoiseGiven{RMS: true, MinSourceMass: true}, "--sensor-noise-rms and --min-source-mass must be finite numbers > 0, got +Inf and 1"},
		{"negative mass", NoiseStatement{RMS: 0.1, MinSourceMass: -1}, NoiseGiven{RMS: true, MinSourceMass: true}, "got 0.1 and -1"},
	} {
		err := c.s.Check(c.given)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want != "" && (errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, flags), c.want)):
			t.Errorf("%s: %v (%v), want a usage error %q", c.name, err, errkind.Of(err), c.want)
		}
	}
}

package privacy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// TestCalibrateNamed: each mechanism's name calibrates as
// CalibrateWithDiscrete with that mechanism; "default" and an unknown
// name are usage errors listing the names; a bad Δ is bad input.
func TestCalibrateNamed(t *testing.T) {
	p := CalibrationParams{Sensitivity: 1, Epsilon: 0.5, Delta: 1e-5}
	for _, name := range []string{"analytic", "classic", "discrete"} {
		m, err := ParseMechanism(name)
		if err != nil {
			t.Fatal(err)
		}
		q := p
		q.Mechanism = m
		want, err := CalibrateWithDiscrete(q)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := CalibrateNamed(name, p); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, want)
		}
	}
	for _, name := range []string{"default", "x", ""} {
		_, err := CalibrateNamed(name, p)
		msg := errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) })
		if errkind.Of(err) != errkind.Usage || !strings.HasPrefix(msg, "--mechanism must be "+MechanismNames()) {
			t.Errorf("%q: %v (%s), want a usage error", name, err, msg)
		}
	}
	if _, err := CalibrateNamed("analytic", CalibrationParams{Sensitivity: 0, Epsilon: 1, Delta: 1e-5}); errkind.Of(err) != errkind.BadInput {
		t.Errorf("Δ = 0: %v, want bad input", err)
	}
}

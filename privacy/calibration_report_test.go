package privacy

import "testing"

// TestCalibrateWithDiscrete: the calibration is Calibrate's and the
// discrete σ DiscreteSigma's at the same parameters, whatever the
// mechanism; Calibrate's refusals pass through.
func TestCalibrateWithDiscrete(t *testing.T) {
	for _, m := range []Mechanism{MechanismAnalytic, MechanismClassic, MechanismDiscrete} {
		p := CalibrationParams{Sensitivity: 0.5, Epsilon: 0.5, Delta: 1e-5, Mechanism: m}
		r, err := CalibrateWithDiscrete(p)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := Calibrate(p)
		ds, _ := DiscreteSigma(0.5, 0.5, 1e-5)
		if r.Calibration != c || r.DiscreteSigma != ds || !(ds > 0) {
			t.Errorf("%v: %+v, want %+v and discrete σ %g", m, r, c, ds)
		}
	}
	_, err := CalibrateWithDiscrete(CalibrationParams{Sensitivity: 1, Epsilon: 2, Delta: 1e-5, Mechanism: MechanismClassic})
	if _, want := Calibrate(CalibrationParams{Sensitivity: 1, Epsilon: 2, Delta: 1e-5, Mechanism: MechanismClassic}); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("classic at ε = 2: %v, want Calibrate's refusal %v", err, want)
	}
	if _, err := CalibrateWithDiscrete(CalibrationParams{Sensitivity: -1, Epsilon: 1, Delta: 1e-5}); err == nil {
		t.Errorf("negative sensitivity: %v", err)
	}
}

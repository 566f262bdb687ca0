package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// TestPlanLocalKeepsToSensorFloor: plan --local never forecasts a
// per-node σ below the default sensors' σ floor (1.984: one report at
// Δ2 ≤ √2·α within the daily cap ε = 4 at δ = 10⁻⁶), and the largest ε
// it says they accept is one whose order σ is at the floor (before: ε = 4
// was forecast at σ ≈ 0.45 on karate, an order every sensor refuses).
func TestPlanLocalKeepsToSensorFloor(t *testing.T) {
	out := mustRun(t, "plan", "--graph", "karate", "--local", "--modes", "per-node", "--epsilon", "0.5,4", "--delta", "1e-6", "--trials", "10", "-o", "json")
	var rep struct {
		Delta2 float64 `json:"delta2"`
		Plan   struct {
			Forecasts []struct {
				Mode    string  `json:"mode"`
				Epsilon float64 `json:"epsilon"`
				Sigma   float64 `json:"sigma"`
			} `json:"forecasts"`
		} `json:"plan"`
		SensorFloor *struct {
			SigmaFloor float64 `json:"sigmaFloor"`
			MaxEpsilon float64 `json:"maxEpsilon"`
		} `json:"sensorFloor"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	floor := sensor.SigmaFloorFor(math.Sqrt2, 4, 1e-6) // keygen's defaults
	forecast := map[float64]bool{}
	for _, f := range rep.Plan.Forecasts {
		forecast[f.Epsilon] = true
		if f.Sigma < floor {
			t.Errorf("ε = %g forecast at σ = %.4g, below the sensors' floor %.4g", f.Epsilon, f.Sigma, floor)
		}
	}
	if !forecast[0.5] || forecast[4] {
		t.Errorf("forecast ε %v; want 0.5 (σ ≈ 3.1) and not 4", forecast)
	}
	if rep.SensorFloor == nil {
		t.Fatalf("no sensorFloor in the report:\n%s", out)
	}
	sigma := func(eps float64) float64 {
		cal, err := privacy.CalibrateRelease(rep.Delta2, eps, 1e-6, 34, privacy.MechanismDefault)
		if err != nil {
			t.Fatal(err)
		}
		return cal.Sigma
	}
	if m := rep.SensorFloor.MaxEpsilon; rep.SensorFloor.SigmaFloor != floor || sigma(m) < floor || sigma(m*1.01) >= floor {
		t.Errorf("floor %v (want %v), largest ε %v: σ there %v, 1%% above %v", rep.SensorFloor.SigmaFloor, floor, m, sigma(m), sigma(m*1.01))
	}
	if code, _, _ := runCode("plan", "--graph", "karate", "--sensor-policy", lowFloorPolicy(t)); code != exitUsage { // a policy that exists: the path check passes
		t.Errorf("--sensor-policy without --local: exit %d, want %d", code, exitUsage)
	}
}

// lowFloorPolicy is a sensor's policy file whose σ floor (0.01) accepts
// the large ε a test forecasts.
func lowFloorPolicy(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "1.policy.json")
	if err := sensor.WritePolicy(path, "1", sensor.Policy{Alpha: 1, SigmaFloor: 0.01, MaxEpsilonPerDay: 1000}); err != nil {
		t.Fatal(err)
	}
	return path
}

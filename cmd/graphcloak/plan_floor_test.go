package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// localPlan is what the floor's tests read of plan --local's JSON.
type localPlan struct {
	Delta2 float64 `json:"delta2"`
	Plan   struct {
		Forecasts []planRow `json:"forecasts"`
		Needed    []struct {
			Mode       string   `json:"mode"`
			Epsilon    *float64 `json:"epsilon"`
			MaxEpsilon *float64 `json:"maxEpsilon"`
			Forecast   planRow  `json:"forecast"`
		} `json:"needed"`
	} `json:"plan"`
	SensorFloor *struct {
		SigmaFloor float64 `json:"sigmaFloor"`
		MaxEpsilon float64 `json:"maxEpsilon"`
	} `json:"sensorFloor"`
}

type planRow struct {
	Mode    string  `json:"mode"`
	Epsilon float64 `json:"epsilon"`
	Sigma   float64 `json:"sigma"`
}

// TestPlanLocalKeepsToSensorFloor: plan --local never forecasts a
// per-node σ below the default sensors' σ floor (1.984: one report at
// Δ2 ≤ √2·α within the daily cap ε = 4 at δ = 10⁻⁶), and the largest ε
// it says they accept is one whose order σ is at the floor (before: ε = 4
// was forecast at σ ≈ 0.45 on karate, an order every sensor refuses).
func TestPlanLocalKeepsToSensorFloor(t *testing.T) {
	out := mustRun(t, "plan", "--graph", "karate", "--local", "--modes", "per-node", "--epsilon", "0.5,4", "--delta", "1e-6", "--trials", "10", "-o", "json")
	var rep localPlan
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

// TestPlanLocalTargetKeepsToSensorFloor: plan --local's --target-accuracy
// searches only the ε the sensors accept, and the zCDP rule's worked
// release (what ε_total buys) is one they accept: each is checked against
// the floor's own σ. Before, the per-node target was "reached" at ε =
// 11.3 (σ ≈ 0.14 on karate, an order every sensor refuses) and the rule
// priced a release at ε = 1 (σ ≈ 1.6, refused).
func TestPlanLocalTargetKeepsToSensorFloor(t *testing.T) {
	out := mustRun(t, "plan", "--graph", "karate", "--local", "--modes", "per-node", "--epsilon", "1", "--delta", "1e-6", "--trials", "10",
		"--target-accuracy", "0.5", "-o", "json")
	validate(t, "plan", out) // maxEpsilon is in plan's schema
	var rep localPlan
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	floor := sensor.SigmaFloorFor(math.Sqrt2, 4, 1e-6) // keygen's defaults
	if len(rep.Plan.Needed) != 1 || rep.SensorFloor == nil || rep.SensorFloor.SigmaFloor != floor {
		t.Fatalf("needed %+v, floor %+v:\n%s", rep.Plan.Needed, rep.SensorFloor, out)
	}
	n := rep.Plan.Needed[0]
	if n.Forecast.Sigma < floor || n.Forecast.Epsilon > rep.SensorFloor.MaxEpsilon {
		t.Errorf("the target's per-node forecast is at ε = %g, σ = %.4g: beyond the sensors' largest ε %g (σ floor %.4g)",
			n.Forecast.Epsilon, n.Forecast.Sigma, rep.SensorFloor.MaxEpsilon, floor)
	}
	if n.Epsilon == nil && (n.MaxEpsilon == nil || *n.MaxEpsilon != rep.SensorFloor.MaxEpsilon || n.Forecast.Epsilon != *n.MaxEpsilon) {
		t.Errorf("an unreached target does not say it searched up to the sensors' largest ε %g: %+v", rep.SensorFloor.MaxEpsilon, n)
	}
	// With the central private answer's rows beside (its ε = 1 row first).
	text := mustRun(t, "plan", "--graph", "karate", "--local", "--epsilon", "1", "--delta", "1e-6", "--trials", "10",
		"--target-accuracy", "0.5", "--epsilon-total", "10", "--delta-total", "1e-5")
	m := regexp.MustCompile(`a release at ε=([0-9.e+-]+), δ=`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no zCDP rule line:\n%s", text)
	}
	eps, _ := strconv.ParseFloat(m[1], 64)
	if eps > rep.SensorFloor.MaxEpsilon {
		t.Errorf("the zCDP rule prices a release at ε = %g, which the sensors refuse (they accept ε ≤ %g)", eps, rep.SensorFloor.MaxEpsilon)
	}
	if !strings.Contains(text, "does not reach it at any ε the sensors accept") && !strings.Contains(text, "reaches it at ε") {
		t.Errorf("the target line:\n%s", text)
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/job"
)

// TestPrivateAnswerDryRunUnderScopeModel (issue 77): on a scope whose
// sensor model has an 8-bit ADC and a faulty sensor (drift allowance
// any), locate --private-answer --dry-run plans the answer the scope's
// model gives: the mechanism the charged answer then draws from
// (randomized response, read back from a real answer) and a forecast
// simulated under the model's faults, within 5 points of the oracle of
// TestPlanForecastsSensorModel (answers drawn by answer.Run from readings
// made by dense Padé, the ADC and a stuck sensor). On 33b7e36 the dry run
// calibrated without the scope's drift allowance (community-envelope,
// noiseless accuracy 0.659 at ε = 1 against the oracle's 0.485) and, on
// karate's merged sources, printed no forecast at all.
func TestPrivateAnswerDryRunUnderScopeModel(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger, "--scope", "m", "--answer-delta", "1e-6", "--answer-epsilon", "10", "--sensor-noise", "0.005",
		"--adc-quantum", "0.00390625", "--faulty-sensors", "1")
	oracle := sensorOracle(t, []float64{1, 4}, -1)
	for _, eps := range []float64{1, 4} {
		args := []string{"locate", "--graph", "karate", "--private-answer", "--ledger", ledger, "--scope", "m", "--tau", "1",
			"--epsilon", fmt.Sprint(eps), "--forecast-trials", "200", "--values", stuckAt(t, dir, 0, 5), "--epoch", fmt.Sprint("e", eps), "-o", "json"}
		var dry, real job.AnswerSummary
		for _, run := range []struct {
			sum  *job.AnswerSummary
			args []string
		}{{&dry, append(args, "--dry-run")}, {&real, args}} {
			out, stderr, code := runPipelineCLI(t, context.Background(), nil, run.args...)
			if code != 0 || json.Unmarshal([]byte(out), run.sum) != nil {
				t.Fatalf("ε = %g %v: exit %d: %s", eps, run.args[len(run.args)-1], code, stderr)
			}
		}
		if dry.Calibration == nil || real.Answer == nil || dry.Calibration.Mechanism != real.Answer.Calibration.Mechanism ||
			dry.Calibration.Alpha != real.Answer.Calibration.Alpha {
			t.Fatalf("ε = %g: the dry run calibrated %+v, the answer drew from %+v", eps, dry.Calibration, real.Answer)
		}
		f := dry.Forecast
		if f == nil || f.SensorModel == "" {
			t.Fatalf("ε = %g: the dry run's forecast %+v is not simulated under the scope's model", eps, f)
		}
		if d := math.Abs(f.CommunityAccuracy - oracle[eps]); d > 0.05 {
			t.Errorf("ε = %g: the dry run forecast %.3f [%.3f, %.3f], the oracle measured %.3f: %.3f apart (over 5 points)",
				eps, f.CommunityAccuracy, f.Low, f.High, oracle[eps], d)
		}
		t.Logf("ε = %g: dry run %.3f (%s), oracle %.3f", eps, f.CommunityAccuracy, dry.Calibration.Mechanism, oracle[eps])
	}
}

// TestPrivateAnswerScopeModelByRMS: a scope's noise stated in reading
// units (--sensor-noise-rms s --min-source-mass m) is the noise
// ν = s·n/m of the graph answered (karate: 0.0001·34/1 = 0.0034), so its
// answers are planned as on a scope created with --sensor-noise 0.0034:
// the same fit tolerance and the same stated noise in the audit. On
// 33b7e36 the rms scope planned at the default fit tolerance 0.01, its
// noise never derived (PlanAnswer read the caller's spec, not the
// scope's model it had adopted).
func TestPrivateAnswerScopeModelByRMS(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	type audit struct {
		FitTolerance float64 `json:"fitTolerance"`
		SensorNoise  float64 `json:"sensorNoise"`
	}
	got := map[string]audit{}
	for scope, model := range map[string][]string{"rms": {"--sensor-noise-rms", "0.0001", "--min-source-mass", "1"}, "nu": {"--sensor-noise", "0.0034"}} {
		ledger := filepath.Join(dir, scope+".json")
		initTestLedger(t, ledger, append([]string{"--scope", scope, "--answer-delta", "1e-6", "--answer-epsilon", "10"}, model...)...)
		out, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--private-answer", "--ledger", ledger,
			"--scope", scope, "--tau", "1", "--epsilon", "1", "--forecast-trials", "0", "--values", stuckAt(t, dir, 0, 5), "--dry-run", "-o", "json")
		var sum struct {
			Audit audit `json:"answerAudit"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &sum) != nil {
			t.Fatalf("scope %s: exit %d: %s", scope, code, stderr)
		}
		got[scope] = sum.Audit
	}
	if r, n := got["rms"], got["nu"]; math.Abs(r.FitTolerance-n.FitTolerance) > 1e-12 || math.Abs(r.SensorNoise-0.0034) > 1e-12 {
		t.Errorf("the rms scope planned at fit tolerance %v with noise %v; the same model as ν: %v with %v (want ν = 0.0034)",
			r.FitTolerance, r.SensorNoise, n.FitTolerance, n.SensorNoise)
	}
}

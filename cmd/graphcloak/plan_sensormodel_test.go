package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// answerRow is what the test reads of a plan's private-answer row.
type answerRow struct {
	Epsilon           float64 `json:"epsilon"`
	CommunityAccuracy float64 `json:"communityAccuracy"`
	Low               float64 `json:"low"`
	High              float64 `json:"high"`
	Exact             bool    `json:"exact"`
	SensorModel       string  `json:"sensorModel"`
}

// planAnswerRows runs plan's private-answer forecast on karate (τ = 1, ε
// 1 and 4) with args and returns its rows by ε.
func planAnswerRows(t *testing.T, args ...string) map[float64]answerRow {
	t.Helper()
	base := []string{"plan", "--graph", "karate", "--tau", "1", "--modes", "private-answer", "--epsilon", "1,4", "--trials", "200", "-o", "json"}
	out, stderr, code := runPipelineCLI(t, context.Background(), nil, append(base, args...)...)
	if code != 0 {
		t.Fatalf("plan %v: exit %d: %s", args, code, stderr)
	}
	validate(t, "plan", out)
	var rep struct {
		Plan struct {
			Forecasts []answerRow `json:"forecasts"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	rows := map[float64]answerRow{}
	for _, f := range rep.Plan.Forecasts {
		rows[f.Epsilon] = f
	}
	return rows
}

// TestPlanForecastsSensorModel (issue 77 item 5): with a sensor model —
// stated by flags or kept by the scope — plan forecasts the private
// answer a scope with that model gives: calibrated with its drift
// allowance and under its faults. The oracle draws answers through
// answer.Run (nearest fit, the drift allowance) on every karate source,
// 100 draws each, from readings it makes itself: the diffusion by dense
// Padé (internal/heattest, not the tool's action), Gaussian noise at
// ν = 0.5 %, an 8-bit ADC (step 1/256 of a unit source) and one sensor
// stuck at 0, drawn uniformly. plan's forecast (200 simulated sources)
// must be within 5 points of the oracle's rate and say its model. On
// 2bb6a90 plan ignored the scope's model: it forecast noiseless readings
// at α = 1 (0.659 at ε = 1 against the oracle's 0.440; 0.985 against
// 0.768 at ε = 4), and had no --drift-hops.
func TestPlanForecastsSensorModel(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json") // the default allowance's
	// The default allowance (any: randomized response at ε) and one hop.
	var byScope map[float64]answerRow
	for _, drift := range []int{privacy.DefaultDriftHops, 1} {
		scope, ledger := "m", ledger
		if drift != privacy.DefaultDriftHops {
			ledger = filepath.Join(dir, "ledger-"+strconv.Itoa(drift)+".json")
		}
		initTestLedger(t, ledger, "--scope", scope, "--answer-delta", "1e-6", "--answer-epsilon", "10", "--sensor-noise", "0.005",
			"--adc-quantum", "0.00390625", "--faulty-sensors", "1", "--drift-hops", (*driftFlag)(&drift).String())
		rows := planAnswerRows(t, "--ledger", ledger, "--scope", scope)
		if drift == privacy.DefaultDriftHops {
			byScope = rows
		}
		oracle := sensorOracle(t, []float64{1, 4}, drift)
		for _, eps := range []float64{1, 4} {
			f := rows[eps]
			if f.SensorModel == "" || f.Exact {
				t.Errorf("drift %d, ε = %g: the row does not say it was simulated under the scope's model (sensorModel %q, exact %v)", drift, eps, f.SensorModel, f.Exact)
			}
			if d := math.Abs(f.CommunityAccuracy - oracle[eps]); d > 0.05 {
				t.Errorf("drift %d, ε = %g: plan forecast %.3f [%.3f, %.3f], the oracle measured %.3f: %.3f apart (over 5 points)",
					drift, eps, f.CommunityAccuracy, f.Low, f.High, oracle[eps], d)
			}
			t.Logf("drift %d, ε = %g: plan %.3f [%.3f, %.3f], oracle %.3f", drift, eps, f.CommunityAccuracy, f.Low, f.High, oracle[eps])
		}
	}
	// The same model stated by flags: the same forecast.
	byFlags := planAnswerRows(t, "--sensor-noise", "0.005", "--drift-hops", "any", "--adc-quantum", "0.00390625", "--faulty-sensors", "1")
	for eps, f := range byScope {
		if g := byFlags[eps]; g != f {
			t.Errorf("ε = %g: the model by flags forecast %+v, the scope's %+v", eps, g, f)
		}
	}
	// Flags stating another model than the scope's are refused.
	if _, _, code := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--modes", "private-answer",
		"--ledger", ledger, "--scope", "m", "--sensor-noise", "0.01"); code != exitUsage {
		t.Errorf("plan stating another model than the scope's: exit %d, want %d", code, exitUsage)
	}
}

// sensorOracle is the rate at which answers drawn by answer.Run on every
// karate source name its community, under the 8-bit ADC and one stuck
// sensor (TestPlanForecastsSensorModel), per ε.
func sensorOracle(t *testing.T, epsilons []float64, drift int) map[float64]float64 {
	t.Helper()
	ctx := context.Background()
	k, _ := laplacian.Karate()
	g, _, err := job.CanonicalGraph(k) // plan's node order
	if err != nil {
		t.Fatal(err)
	}
	part, err := community.Leiden(g, community.LeidenOptions{Resolution: 1, Seed: 1}) // plan's partition
	if err != nil {
		t.Fatal(err)
	}
	const nu, draws = 0.005, 100
	m, err := answer.NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: nu})
	if err != nil {
		t.Fatal(err)
	}
	heat := heattest.PadeHeat(g, 1)
	n, q := g.N(), 1.0/256
	out := map[float64]float64{}
	for _, eps := range epsilons {
		rng := rand.New(rand.NewPCG(77, 5))
		right := 0
		for s := range n {
			for range draws {
				y := make([]float64, n)
				for i := range y {
					y[i] = math.Round((heat.At(i, s)+nu/float64(n)*rng.NormFloat64())/q) * q
				}
				y[rng.IntN(n)] = 0
				res, err := answer.Run(ctx, answer.Request{Graph: g, Values: y, Tau: 1, Epsilon: eps, DriftHops: drift, Partition: part,
					SensorNoise: nu, OnMismatch: answer.MismatchNearest, Model: m, Ledger: freeLedger{}, Scope: "oracle"})
				if err != nil {
					t.Fatal(err)
				}
				if res.Community == strconv.Itoa(part[s]) {
					right++
				}
			}
		}
		out[eps] = float64(right) / float64(n*draws)
	}
	return out
}

// freeLedger charges nothing: the oracle draws answers, it releases none.
type freeLedger struct{}

func (freeLedger) Charge(context.Context, privacy.Charge) error { return nil }
func (freeLedger) Balance(context.Context, string) ([]privacy.Balance, error) {
	return nil, nil
}

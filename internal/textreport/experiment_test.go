package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestLineExperiment: the noise line says whether σ was calibrated
// privately (with ε, δ and Δ2) or fixed.
func TestLineExperiment(t *testing.T) {
	res := &experiment.LineResult{N: 100, M: 50, T: 0.05, Sources: []float64{0.24}, Sigma: 0.1, Trials: 3, EMDMean: 0.01}
	var b bytes.Buffer
	LineExperiment(&b, res)
	if got := b.String(); !strings.Contains(got, "line (n=100, m=50, T=0.05, sources [0.24])") || !strings.Contains(got, "0.1 (fixed, not private)") || strings.Count(got, "\n") != 7 {
		t.Errorf("fixed σ:\n%s", got)
	}
	res.Private, res.Epsilon, res.Delta, res.Delta2 = true, 1, 1e-5, 0.5
	b.Reset()
	LineExperiment(&b, res)
	if got := b.String(); !strings.Contains(got, "(ε=1, δ=1e-05, Δ2=0.5)") || strings.Contains(got, "not private") {
		t.Errorf("private σ:\n%s", got)
	}
}

// TestGraphExperiment: the graph and communities as the result records
// them, Δ2 said to be an upper bound only when it is one, and the
// at-chance line when forecast.Of says so (a result built outside package
// forecast has no trial accuracies, so its interval starts at 0: at
// chance; TestAtChance covers the other case).
func TestGraphExperiment(t *testing.T) {
	for _, exact := range []bool{true, false} {
		res := &forecast.SimulationResult{Graph: "karate", CommunitySource: "planted", Nodes: 34, Edges: 78, Communities: 2, Private: true,
			Delta2Exact: &exact, Trials: 20, CommunityAccuracy: 0.5}
		var b bytes.Buffer
		GraphExperiment(&b, res)
		got := b.String()
		if !strings.Contains(got, "graph karate (34 nodes, 78 edges)") || !strings.Contains(got, "2 (planted)") {
			t.Errorf("header:\n%s", got)
		}
		if strings.Contains(got, "an upper bound") == exact {
			t.Errorf("Δ2 exact %v:\n%s", exact, got)
		}
		if !forecast.Of(res).AtChance || !strings.HasPrefix(got[strings.LastIndex(got[:len(got)-1], "\n")+1:], "AT CHANCE") {
			t.Errorf("at chance %v, last line not AT CHANCE:\n%s", forecast.Of(res).AtChance, got)
		}
	}
}

// TestGraphSweep: one row per experiment, marked at chance when its
// interval reaches the guess, then the chance line and the picture only
// when one was drawn.
func TestGraphSweep(t *testing.T) {
	sw := experiment.SweepReport{
		Experiments: []*forecast.SimulationResult{{Tau: 1, Epsilon: 1, Trials: 20, Seed: 7}, {Tau: 1, Epsilon: 8, Trials: 20, Seed: 7}},
		Summary: experiment.GraphSummary{Community: []experiment.RatePoint{{Rate: 0.5, Lo: 0.3, Hi: 0.7}, {Rate: 0.95, Lo: 0.8, Hi: 1}},
			ExactNode: make([]experiment.RatePoint, 2), CommunityChance: 0.5, CommunityGuess: 0.5}}
	var b bytes.Buffer
	GraphSweep(&b, sw)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "TAU") || !strings.HasPrefix(lines[3], "chance:") || !strings.Contains(lines[3], "20 trials each (seed 7)") {
		t.Fatalf("table:\n%s", b.String())
	}
	if !strings.HasSuffix(lines[1], "at chance: noise") || strings.Contains(lines[2], "at chance") {
		t.Errorf("marks:\n%s\n%s", lines[1], lines[2])
	}
	sw.Plot = "sweep.svg"
	b.Reset()
	GraphSweep(&b, sw)
	if !strings.HasSuffix(b.String(), "picture: sweep.svg\n") {
		t.Errorf("with a picture:\n%s", b.String())
	}
}

// TestSensitivitySweep: one row per panel, its parameter first, beside
// the paper's rate.
func TestSensitivitySweep(t *testing.T) {
	res := &experiment.SensitivityResult{Series: []experiment.SweepSeries{{Param: "m", N: 500, T: 0.1, Slope: 0.5, PaperRate: 0.5}, {Param: "T", M: 500, N: 1000, Slope: -0.75, PaperRate: -1.5}}}
	var b bytes.Buffer
	SensitivitySweep(&b, res)
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], "VARIES") || !strings.HasPrefix(lines[1], "m ") || !strings.HasSuffix(lines[2], "-1.5") || !strings.HasPrefix(lines[4], "derived:") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestCalibrationTable: one row per value, the mechanism's name first and
// the discrete σ last.
func TestCalibrationTable(t *testing.T) {
	r := privacy.CalibrationReport{Calibration: privacy.Calibration{Mechanism: privacy.MechanismAnalytic, Sigma: 3.5, Rho: 0.04, Sensitivity: 1, Epsilon: 1, Delta: 1e-5}, DiscreteSigma: 4.25}
	var b bytes.Buffer
	if err := Calibration(&b, r); err != nil {
		t.Fatal(err)
	}
	got := rows(t, b.String())
	for label, want := range map[string]string{"mechanism": "analytic", "sigma": "3.5", "rho (zCDP)": "0.04", "epsilon, delta": "1, 1e-05", "discrete sigma (release)": "4.25"} {
		if got[label] != want {
			t.Errorf("%s = %q, want %q", label, got[label], want)
		}
	}
}

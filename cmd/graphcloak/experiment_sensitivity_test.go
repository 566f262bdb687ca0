package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestExperimentSensitivityJSONAndPlot(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "fig2.svg")
	out, code := runExperimentCLI(t, "experiment", "sensitivity", "--line", "--m-values", "50,200,800",
		"--n-values", "100,400", "--T-values", "0.0001,0.0002,50,100", "--plot", svg, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var res struct {
		Series []struct {
			Param           string
			Points          []struct{ X, Delta2 float64 }
			Slope, SlopeLow float64
			SlopeHigh       float64
			PaperRate       float64
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(res.Series) != 3 {
		t.Fatalf("%d series", len(res.Series))
	}
	want := map[string][2]float64{"m": {0.5, 0.5}, "n": {0, 0}, "T": {-0.75, -1.5}} // low-end, high-end slopes derived
	for _, s := range res.Series {
		w := want[s.Param]
		if math.Abs(s.SlopeLow-w[0]) > 0.03 || math.Abs(s.SlopeHigh-w[1]) > 0.03 {
			t.Errorf("%s: end slopes %.3f, %.3f; derived %.2f, %.2f", s.Param, s.SlopeLow, s.SlopeHigh, w[0], w[1])
		}
	}
	data, err := os.ReadFile(svg)
	if err != nil || len(data) == 0 {
		t.Fatalf("plot not written: %v", err)
	}
}

func TestExperimentSensitivityRefusals(t *testing.T) {
	dir := t.TempDir()
	gif := filepath.Join(dir, "fig2.gif")
	if _, code := runExperimentCLI(t, "experiment", "sensitivity", "--line", "--plot", gif); code != exitBadInput {
		t.Errorf("--plot x.gif: exit %d, want %d", code, exitBadInput)
	}
	if _, err := os.Stat(gif); !os.IsNotExist(err) {
		t.Errorf("a refused plot left %s behind", gif)
	}
	if _, code := runExperimentCLI(t, "experiment", "sensitivity", "--line=false"); code != exitUsage {
		t.Errorf("--line=false: exit %d, want %d", code, exitUsage)
	}
	if _, code := runExperimentCLI(t, "experiment", "sensitivity", "--T-values", "0.1,-1"); code != exitBadInput {
		t.Errorf("negative T: exit %d, want %d", code, exitBadInput)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

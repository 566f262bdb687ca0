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
		"--n-values", "100,400", "--tau-values", "0.0001,0.0002,50,100", "--plot", svg, "-o", "json")
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
	if _, code := runExperimentCLI(t, "experiment", "sensitivity", "--tau-values", "0.1,-1"); code != exitBadInput {
		t.Errorf("negative T: exit %d, want %d", code, exitBadInput)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

// Several ε give one experiment each, the rates with Wilson intervals that
// contain them, the chance levels, and a rates picture.
func TestExperimentGraphSweep(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "rates.svg")
	out, code := runExperimentCLI(t, "experiment", "graph", "--graph", "sbm:sizes=30x30,pin=0.3,pout=0.01",
		"--epsilon", "1,8", "--tau", "1", "--trials", "20", "--plot", svg, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var sw struct {
		Experiments []struct{ Epsilon float64 }
		Summary     struct {
			Community       []struct{ Epsilon, Rate, Lo, Hi float64 }
			CommunityChance float64
			ExactNodeChance float64
		}
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(sw.Experiments) != 2 || len(sw.Summary.Community) != 2 {
		t.Fatalf("%d experiments, %d points", len(sw.Experiments), len(sw.Summary.Community))
	}
	for _, c := range sw.Summary.Community {
		if !(c.Lo <= c.Rate && c.Rate <= c.Hi) {
			t.Errorf("ε=%g: rate %g outside [%g, %g]", c.Epsilon, c.Rate, c.Lo, c.Hi)
		}
	}
	if sw.Summary.CommunityChance != 0.5 || sw.Summary.ExactNodeChance != 1.0/60 {
		t.Errorf("chance levels %g, %g; want 1/2 and 1/60", sw.Summary.CommunityChance, sw.Summary.ExactNodeChance)
	}
	if st, err := os.Stat(svg); err != nil || st.Size() == 0 {
		t.Errorf("rates picture not written: %v", err)
	}
}

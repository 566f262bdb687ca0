package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/job"
)

// locateJSON releases karate's readings (a spike at node 1) at ε and
// locates them, returning locate's JSON.
func locateJSON(t *testing.T, dir, eps string) map[string]any {
	t.Helper()
	readings := filepath.Join(dir, "readings.csv")
	out := filepath.Join(dir, "release-"+eps+".json")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", out, "--ledger", filepath.Join(dir, "l.json"), "--epsilon", eps, "--delta", "1e-6", "--tau", "0.2"); code != 0 {
		t.Fatalf("release ε=%s: exit %d: %s", eps, code, stderr)
	}
	return locateReleaseJSON(t, out)
}

// locateReleaseJSON locates the release file out on karate, returning
// locate's JSON.
func locateReleaseJSON(t *testing.T, out string, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append([]string{"locate", "--graph", "karate", "--release", out,
		"--forecast-trials", "40", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("locate %s: exit %d: %s", out, code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestLocateFlagsNoise: a release with overwhelming noise (ε = 0.05) is
// flagged noise-dominated with a forecast at chance; a clear one (ε = 500)
// is not flagged and its forecast is far above chance. The table says the
// same in words.
func TestLocateFlagsNoise(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	releaseKarate(t, dir) // readings, ledger (ε_total 1000)
	noisy, clear := locateJSON(t, dir, "0.05"), locateJSON(t, dir, "500")
	if noisy["noiseDominated"] != true || clear["noiseDominated"] != false {
		t.Fatalf("noiseDominated: ε=0.05 %v (p %v), ε=500 %v (p %v)", noisy["noiseDominated"], noisy["noisePValue"],
			clear["noiseDominated"], clear["noisePValue"])
	}
	if noisy["noiseBasis"] != "forecast" || !strings.Contains(noisy["noiseReason"].(string), "not a finding") {
		t.Errorf("the verdict does not rest on the forecast: basis %v, reason %v", noisy["noiseBasis"], noisy["noiseReason"])
	}
	// The noisy release's mass cannot be told from 0 (no forecast) or its
	// forecast is at chance; the clear one's, at the mass the readings
	// carry (1 unit: --source-mass, since the estimate's 95% lower bound
	// varies with the release's noise), is far above chance.
	fn, _ := noisy["forecast"].(map[string]any)
	stated := locateReleaseJSON(t, filepath.Join(dir, "release-500.json"), "--source-mass", "1")
	fc, _ := stated["forecast"].(map[string]any)
	// The verdict names the stated mass as its user gave it (job.Env.ParamName).
	if v, _ := stated["verdict"].(map[string]any); v == nil || !strings.Contains(v["reason"].(string), "units (--source-mass)") {
		t.Errorf("the verdict on a stated source mass does not name --source-mass: %v", stated["verdict"])
	}
	if (fn != nil && fn["atChance"] != true) || fc["atChance"] != false || !(fc["communityAccuracy"].(float64) > 3*fc["chance"].(float64)) {
		t.Fatalf("forecasts: noisy %v, clear %v", fn, fc)
	}
	for _, k := range []string{"communityAccuracy", "chance", "low", "high"} {
		if _, ok := fc[k]; !ok {
			t.Errorf("forecast lacks %q", k)
		}
	}
	rel := filepath.Join(dir, "release-0.05.json")
	stdout, _, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--release", rel, "--forecast-trials", "20")
	if code != 0 || !strings.Contains(stdout, "WARNING: noise") || !strings.Contains(stdout, "not a finding") {
		t.Fatalf("table (exit %d) does not warn:\n%s", code, stdout)
	}
}

// TestReleaseDryRunForecast: the dry run shows both forecasts and charges
// nothing.
func TestReleaseDryRunForecast(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	releaseKarate(t, dir)
	ledger := filepath.Join(dir, "l.json")
	before, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values",
		filepath.Join(dir, "readings.csv"), "--ledger", ledger, "--epsilon", "1", "--delta", "1e-6", "--tau", "0.2",
		"--dry-run", "--forecast-trials", "30", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "release", stdout)
	var sum struct {
		Forecast struct {
			PerNode, PrivateAnswer struct {
				Mode              string
				CommunityAccuracy float64
				Chance            float64
				Trials            int
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	f := sum.Forecast
	if f.PerNode.Mode != "per-node" || f.PrivateAnswer.Mode != "private-answer" || f.PerNode.Trials != 30 || f.PerNode.Chance <= 0 {
		t.Fatalf("forecast %+v", f)
	}
	after, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
	if before != after {
		t.Fatalf("the dry run changed the ledger:\n%s\n%s", before, after)
	}
}

// TestPrivateAnswerRefusals: bad combinations exit with a usage or input
// error before anything is charged.
func TestPrivateAnswerRefusals(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	readings, ledger := filepath.Join(dir, "readings.csv"), filepath.Join(dir, "l.json")
	for _, args := range [][]string{
		{"locate", "--graph", "karate", "--private-answer", "--ledger", ledger, "--epsilon", "1"},                               // no readings
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--release", rel, "--ledger", ledger},         // released values
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--answer-cap", "99"},     // cap
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--epsilon", "-1"},        // ε
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--plot", dir + "/x.png"}, // no per-node picture
	} {
		before, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 2 && code != 3 {
			t.Errorf("%v: exit %d, want 2 or 3: %s", args, code, stderr)
		}
		if after, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json"); after != before {
			t.Errorf("%v charged the ledger", args)
		}
	}
}

// TestOutputsNeverOverwriteInputs: an output property
// that is the node key (or whose run-id companion is), the readings, or a
// property locate reads is refused with exit 3 before any connection —
// the URI here points nowhere, so anything later would fail differently.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings := filepath.Join(dir, "r.csv")
	os.WriteFile(readings, []byte("node,value\n1,0.5\n"), 0o600)
	nowhere := []string{"--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--node-key-property", "roomId"}
	for _, args := range [][]string{
		append([]string{"release", "--write-property", "roomId", "--values", readings, "--ledger", "neo4j", "--epsilon", "1", "--tau", "1"}, nowhere...),
		{"release", "--write-property", "room", "--values", readings, "--ledger", "neo4j", "--epsilon", "1", "--tau", "1",
			"--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--node-key-property", "room_runId"},
		append([]string{"locate", "--rank-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--mass-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--community-write-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--probability-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--community-write-property", "relv", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--mass-property", "x", "--probability-property", "x", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"communities", "--community-write-property", "roomId"}, nowhere...),
	} {
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		if code != 3 || !strings.Contains(stderr, "would overwrite") {
			t.Errorf("%v: exit %d, want 3 naming the conflict: %s", args, code, stderr)
		}
	}
}

// TestRunsPruneKeepNegative: --keep -1 is refused
// (exit 3) before any connection; -1 used to mean "no limit" inside.
func TestRunsPruneKeepNegative(t *testing.T) {
	isolateConfig(t)
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "runs", "prune", "--keep", "-1", "--uri", "bolt://127.0.0.1:1"); code != 3 || !strings.Contains(stderr, "--keep") {
		t.Fatalf("runs prune --keep -1: exit %d: %s", code, stderr)
	}
}

// TestReleaseSmoothAuto: --smooth auto forecasts every candidate τ′ with
// its own Δ2 — the same Δ2 sensitivity computes at τ+τ′, non-increasing
// in τ′ — picks the candidate with the best forecast, and the release
// then draws with that τ′ and its σ (the release file says so); a bad
// value is an input error.
func TestReleaseSmoothAuto(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	releaseKarate(t, dir) // readings, ledger
	ledger, readings, out := filepath.Join(dir, "l.json"), filepath.Join(dir, "readings.csv"), filepath.Join(dir, "smooth.json")
	args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--epsilon", "4", "--delta", "1e-6",
		"--tau", "0.5", "--smooth", "auto", "--forecast-trials", "40", "-o", "json"}
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "release", stdout)
	var sum struct {
		Smooth        float64
		Sigma         float64
		Delta2        float64
		SmoothChoices []job.SmoothChoice
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.SmoothChoices) != len(job.SmoothCandidates) {
		t.Fatalf("%d choices, want %d", len(sum.SmoothChoices), len(job.SmoothCandidates))
	}
	best := sum.SmoothChoices[0]
	for i, c := range sum.SmoothChoices {
		if want := job.SmoothCandidates[i] * 0.5; c.Smooth != want {
			t.Errorf("choice %d: τ′ %g, want %g", i, c.Smooth, want)
		}
		d2, _, code := runPipelineCLI(t, context.Background(), nil, "sensitivity", "--graph", "karate", "--tau", ftoa(0.5+c.Smooth), "-o", "json")
		var s struct{ Delta2 float64 }
		if code != 0 || json.Unmarshal([]byte(d2), &s) != nil || math.Abs(s.Delta2-c.Delta2) > 1e-9*s.Delta2 {
			t.Errorf("τ′ %g: Δ2 %v, sensitivity at τ+τ′ says %s", c.Smooth, c.Delta2, d2)
		}
		if i > 0 && c.Delta2 > sum.SmoothChoices[i-1].Delta2*(1+1e-9) {
			t.Errorf("Δ2 grows with τ′: %v", sum.SmoothChoices)
		}
		if c.CommunityAccuracy > best.CommunityAccuracy {
			best = c
		}
	}
	if sum.Smooth != best.Smooth || sum.Sigma != best.Sigma || sum.Delta2 != best.Delta2 {
		t.Errorf("released τ′ %g σ %g Δ2 %g, the best forecast was %+v", sum.Smooth, sum.Sigma, sum.Delta2, best)
	}
	var rel struct {
		Meta struct{ Smooth, Sigma float64 }
	}
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &rel) != nil || rel.Meta.Smooth != best.Smooth || rel.Meta.Sigma != best.Sigma {
		t.Errorf("release file: %s (err %v), want τ′ %g σ %g", data, err, best.Smooth, best.Sigma)
	}
	_, stderr, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--ledger", ledger, "--epsilon", "4", "--tau", "0.5", "--smooth", "sometimes", "--dry-run")
	if code != exitBadInput || !strings.Contains(stderr, "--smooth must be auto or a finite") {
		t.Errorf("--smooth sometimes: exit %d: %s", code, stderr)
	}
}

// TestForecastTrialsRefused: a negative --forecast-trials is an input
// error (exit 3) naming the flag in every command that forecasts, before
// anything is read, charged or written.
func TestForecastTrialsRefused(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	readings, ledger := filepath.Join(dir, "readings.csv"), filepath.Join(dir, "l.json")
	before, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"locate", "--graph", "karate", "--release", rel},
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--epsilon", "1"},
		{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--epsilon", "1", "--out", filepath.Join(dir, "new.json")},
	} {
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--forecast-trials", "-1")...)
		if code != exitBadInput || !strings.Contains(stderr, "--forecast-trials must be ≥ 0") {
			t.Errorf("%s: exit %d: %s", args[0], code, stderr)
		}
	}
	// --refuse-at-chance without a forecast would refuse nothing: refused.
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--ledger", ledger, "--epsilon", "1", "--out", filepath.Join(dir, "new.json"), "--refuse-at-chance", "--forecast-trials", "0")
	if code != exitBadInput || !strings.Contains(stderr, "--refuse-at-chance decides on a forecast") {
		t.Errorf("--refuse-at-chance --forecast-trials 0: exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(ledger); string(after) != string(before) {
		t.Error("a refused command changed the ledger")
	}
	if _, err := os.Stat(filepath.Join(dir, "new.json")); !os.IsNotExist(err) {
		t.Errorf("a refused release wrote its file: %v", err)
	}
}

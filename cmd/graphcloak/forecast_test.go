package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// TestForecastBySourceMass (issue 48, item 1): plan and the release's dry
// run show the forecast as a function of source mass — what mass a
// release at this ε resolves. Before, both forecast unit sources only (the
// same 0.62 for 1-unit and 100-unit readings).
func TestForecastBySourceMass(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	// Two blocks Leiden finds in any node order: at pin 0.08 it split
	// them into 3 or 5 communities by the order it visited, and the
	// recovery's right community did not rise with mass on 5.
	const spec = "sbm:sizes=100x100,pin=0.15,pout=0.01,seed=3"
	check := func(what string, f map[string]any) {
		t.Helper()
		curve, _ := f["massCurve"].([]any)
		if len(curve) < 5 {
			t.Fatalf("%s: no forecast by source mass: %v", what, f)
		}
		at := map[float64]float64{}
		for _, p := range curve {
			p := p.(map[string]any)
			at[p["mass"].(float64)] = p["communityAccuracy"].(float64)
		}
		r, ok := f["resolvableMass"].(float64)
		if !(at[1000] > at[1]+0.2) || !ok || !(r > 1 && r <= 1000) {
			t.Errorf("%s: right at 1 unit %.3f, at 1000 units %.3f, resolves %v; want more at 1000 and a resolvable mass in (1, 1000]", what, at[1], at[1000], f["resolvableMass"])
		}
	}
	out, stderr, code := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", spec, "--modes", "per-node", "--epsilon", "1",
		"--tau", "1", "--trials", "40", "-o", "json")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	var plan map[string]any
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	check("plan", plan["plan"].(map[string]any)["forecasts"].([]any)[0].(map[string]any))
	table, _, _ := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", spec, "--modes", "per-node", "--epsilon", "1",
		"--tau", "1", "--trials", "40")
	if !strings.Contains(table, "right community by source mass") || !strings.Contains(table, "resolves") {
		t.Errorf("plan's table does not show the forecast by source mass:\n%s", table)
	}
	readings := twoBlockReadings(t, dir, spec, 1, 100, 7)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger, "--epsilon-total", "10", "--delta-total", "1e-3")
	out, stderr, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", spec, "--values", readings,
		"--out", filepath.Join(dir, "r.json"), "--ledger", ledger, "--epsilon", "1", "--tau", "1", "--dry-run", "--forecast-trials", "40", "-o", "json")
	if code != 0 {
		t.Fatalf("release --dry-run: exit %d: %s", code, stderr)
	}
	var dry map[string]any
	if err := json.Unmarshal([]byte(out), &dry); err != nil {
		t.Fatal(err)
	}
	check("release --dry-run", dry["forecast"].(map[string]any)["perNode"].(map[string]any))
}

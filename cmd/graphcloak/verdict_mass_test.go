package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// twoBlockReadings writes readings for a source of mass units at node
// src of graph spec, diffused for τ (exp(−τL)·mass·e_src, no noise: the
// release adds it).
func twoBlockReadings(t *testing.T, dir, spec string, tau, mass float64, src int) string {
	t.Helper()
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	md, err := recovery.NewGraphModel(g, tau, recovery.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f0, y := make([]float64, g.N()), make([]float64, g.N())
	f0[src] = mass
	md.Apply(y, f0)
	var b strings.Builder
	b.WriteString("node,value\n")
	for i, v := range y {
		fmt.Fprintf(&b, "%s,%.9g\n", g.Key(i), v)
	}
	p := filepath.Join(dir, fmt.Sprintf("readings-%g.csv", mass))
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVerdictFollowsSourceMass (issue 48, item 1): the verdict is computed
// for the release in front of it. On two sensor blocks of 100 nodes at
// ε = 1, a 100-unit source is ranked right and its release must not be
// called noise, while a 1-unit source's release is: the forecast behind
// the verdict simulates sources of the mass the readings carry, not unit
// ones. Before, both were forecast at unit sources (the same rate) and
// the 100-unit answer was flagged "not a finding" next to p = 0.005.
func TestVerdictFollowsSourceMass(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	const spec = "sbm:sizes=100x100,pin=0.08,pout=0.01,seed=3"
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger, "--epsilon-total", "100", "--delta-total", "1e-3")
	locate := func(mass float64, src int) map[string]any {
		readings := twoBlockReadings(t, dir, spec, 1, mass, src)
		rel := filepath.Join(dir, fmt.Sprintf("release-%g.json", mass))
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", spec, "--values", readings,
			"--out", rel, "--ledger", ledger, "--epsilon", "1", "--tau", "1"); code != 0 {
			t.Fatalf("release %g units: exit %d: %s", mass, code, stderr)
		}
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", spec, "--release", rel,
			"--forecast-trials", "60", "-o", "json")
		if code != 0 {
			t.Fatalf("locate %g units: exit %d: %s", mass, code, stderr)
		}
		var sum map[string]any
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	strong := locate(100, 7)
	rep := strong["report"].(map[string]any)["communities"].([]any)
	top := rep[0].(map[string]any)
	if strong["noiseDominated"] != false {
		t.Errorf("100 units: called noise (evidence p %v, top community %v at %v): %v", strong["noisePValue"], top["name"], top["share"], strong["noiseReason"])
	}
	m, _ := strong["sourceMass"].(map[string]any)
	if m == nil || !(m["low"].(float64) > 10) || !(m["low"].(float64) <= 100) {
		t.Errorf("100 units: source mass %v; want a lower bound in (10, 100]", m)
	}
	if v, _ := strong["verdict"].(map[string]any); v == nil || !strings.HasPrefix(v["reason"].(string), "answer") {
		t.Errorf("100 units: verdict %v; want an answer with its reason", strong["verdict"])
	}
	weak := locate(1, 7)
	if weak["noiseDominated"] != true || !strings.Contains(weak["noiseReason"].(string), "not a finding") {
		t.Errorf("1 unit: noiseDominated %v (%v); want noise", weak["noiseDominated"], weak["noiseReason"])
	}
}

// TestForecastBySourceMass (issue 48, item 1): plan and the release's dry
// run show the forecast as a function of source mass — what mass a
// release at this ε resolves. Before, both forecast unit sources only (the
// same 0.62 for 1-unit and 100-unit readings).
func TestForecastBySourceMass(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	const spec = "sbm:sizes=100x100,pin=0.08,pout=0.01,seed=3"
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

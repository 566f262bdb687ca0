package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

func TestLocateReleaseFile(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	// Communities from a file: the two factions (node 1's is "hi").
	comm := filepath.Join(dir, "comm.csv")
	var b strings.Builder
	b.WriteString("node,community\n")
	officer := map[int]bool{}
	for _, k := range []int{9, 10, 15, 16, 19, 21, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34} {
		officer[k] = true
	}
	for k := 1; k <= 34; k++ {
		c := "hi"
		if officer[k] {
			c = "officer"
		}
		b.WriteString(itoa(k) + "," + c + "\n")
	}
	os.WriteFile(comm, []byte(b.String()), 0o600)
	perNode := filepath.Join(dir, "nodes.csv")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel,
		"--tau", "0.2", "--communities", "file:"+comm, "--out", perNode, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"graph", "nodeCount", "relationshipCount", "estimator", "status", "sigma", "tau",
		"communities", "communityCount", "report", "topNodes", "nodePropertiesWritten", "computeMillis", "writeMillis", "out"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	rep := sum["report"].(map[string]any)
	top := rep["communities"].([]any)[0].(map[string]any)
	if top["name"] != "hi" || !(top["probability"].(float64) > 0.9) || sum["communityCount"] != 2.0 {
		t.Errorf("top community %v, want hi with share > 0.9", top)
	}
	f, err := os.Open(perNode)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 35 || strings.Join(rows[0], ",") != "key,mass,weight,community,probability,rank" {
		t.Fatalf("per-node CSV: %d rows, header %v, %v", len(rows), rows[0], err)
	}
	for _, r := range rows[1:] {
		want := map[string]string{"hi": "1", "officer": "2"}[r[3]]
		if r[5] != want {
			t.Errorf("node %s in %s has rank %s, want %s", r[0], r[3], r[5], want)
		}
	}

	// The human table lists the ranked communities.
	stdout, _, code = runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel, "--tau", "0.2")
	if code != 0 || !strings.Contains(stdout, "RANK") || !strings.Contains(stdout, "PROBABILITY") {
		t.Errorf("table output (exit %d):\n%s", code, stdout)
	}
}

func TestLocateExitCodes(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o600)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no released", []string{"locate", "--graph", "karate"}, exitUsage},
		{"both sources", []string{"locate", "--graph", "neo4j", "--released", rel, "--released-property", "v"}, exitUsage},
		{"property off neo4j", []string{"locate", "--graph", "karate", "--released", rel, "--communities", "property:louvain"}, exitUsage},
		{"communities kind", []string{"locate", "--graph", "karate", "--released", rel, "--communities", "infomap"}, exitUsage},
		{"estimator", []string{"locate", "--graph", "karate", "--released", rel, "--estimator", "magic"}, exitBadInput},
		{"garbage release file", []string{"locate", "--graph", "karate", "--released", garbage}, exitBadInput},
		{"wrong graph", []string{"locate", "--graph", "path:n=10", "--released", rel}, exitBadInput},
		{"missing communities file", []string{"locate", "--graph", "karate", "--released", rel, "--communities", "file:" + filepath.Join(dir, "none.csv")}, exitBadInput},
		{"property needs sigma", []string{"locate", "--graph", "neo4j", "--released-property", "v"}, exitUsage},
		{"bad property name", []string{"locate", "--graph", "neo4j", "--released-property", "v`x", "--sigma", "1"}, exitBadInput},
		{"unreachable", []string{"locate", "--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--sigma", "1"}, exitDBUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runPipelineCLI(t, context.Background(), nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
		})
	}
}

// locate --plot draws one node mark per node and one disc per community
// found, coloured by the posterior or the released values; a bad format is
// refused before any work and leaves nothing behind.
func TestLocatePlot(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	for _, value := range []string{"posterior", "released"} {
		svg := filepath.Join(dir, value+".svg")
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel,
			"--tau", "0.2", "--plot", svg, "--plot-value", value, "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var sum struct {
			Plot           string
			CommunityCount int
		}
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(svg)
		if err != nil || sum.Plot != svg {
			t.Fatalf("plot %q not written: %v", sum.Plot, err)
		}
		if got := strings.Count(string(data), `class="node"`); got != 34 {
			t.Errorf("%s: %d node marks, want 34", value, got)
		}
		if got := strings.Count(string(data), `class="community"`); got != sum.CommunityCount {
			t.Errorf("%s: %d community discs, want %d", value, got, sum.CommunityCount)
		}
		if value == "released" && !strings.Contains(string(data), "released value") {
			t.Error("legend does not say the colour is the released value")
		}
	}
	bad := filepath.Join(dir, "x.gif")
	if _, _, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel,
		"--tau", "0.2", "--plot", bad); code != exitBadInput {
		t.Errorf("--plot x.gif: exit %d, want %d", code, exitBadInput)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Error("refused plot left a file")
	}
}

// Leiden is the default detector; --resolution reaches it (a larger γ
// gives more, smaller communities) and louvain stays available.
func TestLocateResolution(t *testing.T) {
	isolateConfig(t)
	rel := releaseKarate(t, t.TempDir())
	count := func(args ...string) int {
		t.Helper()
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil,
			append([]string{"locate", "--graph", "karate", "--released", rel, "--tau", "0.2", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var sum struct{ CommunityCount int }
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		return sum.CommunityCount
	}
	low, def, high := count("--resolution", "0.3"), count(), count("--resolution", "3")
	if !(low < def && def < high) {
		t.Errorf("communities at γ = 0.3, 1, 3: %d, %d, %d; want increasing", low, def, high)
	}
	if n := count("--communities", "louvain"); n < 2 {
		t.Errorf("louvain found %d communities on karate", n)
	}
	if _, _, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel,
		"--tau", "0.2", "--resolution", "-1"); code != exitBadInput {
		t.Errorf("--resolution -1: exit %d, want %d", code, exitBadInput)
	}
}

// A release file states its provenance (τ, α, graph fingerprint,
// tool version); locate takes τ and σ from it, refuses a contradicting
// --tau or --sigma, a bad --sigma, and another graph, naming what differs.
func TestLocateReleaseProvenance(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	relPath := releaseKarate(t, dir) // τ = 0.2
	rel, err := privacy.ReadReleaseFile(relPath)
	if err != nil {
		t.Fatal(err)
	}
	m := rel.Meta
	if m.Tau != 0.2 || !(m.Alpha > 0) || m.Graph == nil || m.Graph.Nodes != 34 || m.Graph.Edges != 78 || m.ToolVersion == "" {
		t.Fatalf("release meta lacks provenance: %+v", m)
	}

	out, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--release", relPath, "-o", "json")
	if code != 0 {
		t.Fatalf("locate: exit %d: %s", code, stderr)
	}
	var sum struct {
		Tau   float64 `json:"tau"`
		Sigma float64 `json:"sigma"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Tau != 0.2 || sum.Sigma != m.Sigma {
		t.Errorf("locate used τ = %g, σ = %g; the release has τ = 0.2, σ = %g", sum.Tau, sum.Sigma, m.Sigma)
	}
	// τ from the environment yields to the release's.
	t.Setenv("GRAPHCLOAK_PRIVACY_TAU", "1")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--release", relPath); code != 0 {
		t.Errorf("τ from the environment: exit %d: %s", code, stderr)
	}
	os.Unsetenv("GRAPHCLOAK_PRIVACY_TAU")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--graph", "karate", "--tau", "1"}, "contradicts the release's τ"},
		{[]string{"--graph", "karate", "--sigma", "0.1"}, "contradicts the release's σ"},
		{[]string{"--graph", "karate", "--sigma", "-1"}, "--sigma must be a positive"},
		{[]string{"--graph", "path:n=34"}, "33 edges, expected 78"},
		{[]string{"--graph", "cycle:n=34"}, "34 edges, expected 78"},
	} {
		args := append([]string{"locate", "--release", relPath}, tc.args...)
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 3 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}

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
	// Low is a 97.5% lower bound on the true 100 units: above 100 about
	// one run in 40 (the release's noise is not seeded; it read 100.42
	// once), above 100 + 2·SE about never (forecast.MassEstimate).
	m, _ := strong["sourceMass"].(map[string]any)
	if m == nil || !(m["low"].(float64) > 10) || !(m["low"].(float64) <= 100+2*m["standardError"].(float64)) {
		t.Errorf("100 units: source mass %v; want a lower bound in (10, 100 + 2·SE]", m)
	}
	// A finding, not noise: an answer, or better than a guess when its
	// forecast is right less than half the time (forecast.AnswerLabel).
	if v, _ := strong["verdict"].(map[string]any); v == nil || strings.HasPrefix(v["reason"].(string), "noise") || !strings.Contains(v["reason"].(string), "evidence of a source") {
		t.Errorf("100 units: verdict %v; want a finding with its reason", strong["verdict"])
	}
	weak := locate(1, 7)
	if weak["noiseDominated"] != true || !strings.Contains(weak["noiseReason"].(string), "not a finding") {
		t.Errorf("1 unit: noiseDominated %v (%v); want noise", weak["noiseDominated"], weak["noiseReason"])
	}
}

package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
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

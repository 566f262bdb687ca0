package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runCLI executes the command tree in-process and returns stdout and the
// exit code main would use.
func runExperimentCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), exitCode(err)
}

func TestExperimentLineJSON(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "line.png")
	out, code := runExperimentCLI(t, "experiment", "line", "--n", "100", "--m", "50", "--T", "0.05", "--sigma", "0.1",
		"--sources", "0.24,0.76", "--trials", "4", "--estimator", "bpdn", "--seed", "3", "--plot", plot, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"trials", "emdMean", "emdMax", "sigma", "estimator"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if m["estimator"] != "bpdn" || m["trials"] != 4.0 || m["sigma"] != 0.1 {
		t.Errorf("wrong values: %v", m)
	}
	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("plot is not a PNG: %v", err)
	}
}

func TestExperimentLinePrivate(t *testing.T) {
	out, code := runExperimentCLI(t, "experiment", "line", "--epsilon", "2", "--delta", "1e-5", "--trials", "2", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m["private"] != true || !(m["delta2"].(float64) > 0) {
		t.Errorf("private run: %v", m)
	}
}

func TestExperimentGraphJSON(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "bars.png")
	out, code := runExperimentCLI(t, "experiment", "graph", "--graph", "karate", "--tau", "1", "--epsilon", "8",
		"--delta", "0.1", "--sources", "1", "--trials", "10", "--seed", "2", "--plot", plot, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"trials", "communityAccuracy", "exactNodeRate", "emdMean", "noSourceRate", "sigma", "delta2", "estimator"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if m["communitySource"] != "planted" || m["communityCount"] != 2.0 {
		t.Errorf("karate should be scored on its two factions: %v", m)
	}
	if _, err := os.Stat(plot); err != nil {
		t.Error(err)
	}
	// A community file overrides the planted factions.
	csv := filepath.Join(t.TempDir(), "c.csv")
	var b strings.Builder
	for i := 1; i <= 34; i++ {
		b.WriteString(strconv.Itoa(i) + "," + []string{"a", "b", "c"}[i%3] + "\n")
	}
	if err := os.WriteFile(csv, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = runExperimentCLI(t, "experiment", "graph", "--graph", "karate", "--trials", "3", "--communities", "file:"+csv, "-o", "json")
	if code != 0 {
		t.Fatalf("file communities: exit %d: %s", code, out)
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || m["communityCount"] != 3.0 {
		t.Errorf("file communities: %v %v", err, m)
	}
}

func TestExperimentBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"unknown estimator", []string{"experiment", "line", "--estimator", "magic"}, exitBadInput},
		{"negative trials line", []string{"experiment", "line", "--trials", "-3"}, exitBadInput},
		{"negative trials graph", []string{"experiment", "graph", "--graph", "karate", "--trials", "-1"}, exitBadInput},
		{"bad sources list", []string{"experiment", "line", "--sources", "0.2,abc"}, exitUsage},
		{"source outside", []string{"experiment", "line", "--sources", "1.5"}, exitBadInput},
		{"sources twice on grid", []string{"experiment", "line", "--sources", "0.5,0.501"}, exitBadInput},
		{"sigma and epsilon", []string{"experiment", "line", "--sigma", "0.1", "--epsilon", "1"}, exitUsage},
		{"bad epsilon", []string{"experiment", "graph", "--graph", "karate", "--epsilon", "0"}, exitBadInput},
		{"bad delta", []string{"experiment", "graph", "--graph", "karate", "--delta", "1"}, exitBadInput},
		{"bad tau", []string{"experiment", "graph", "--graph", "karate", "--tau", "-2"}, exitBadInput},
		{"bad graph spec", []string{"experiment", "graph", "--graph", "sbm:sizes=oops"}, exitBadInput},
		{"too many sources", []string{"experiment", "graph", "--graph", "karate", "--sources", "40"}, exitBadInput},
		{"no planted partition", []string{"experiment", "graph", "--graph", "path:n=10", "--communities", "planted"}, exitBadInput},
		{"bad communities", []string{"experiment", "graph", "--graph", "karate", "--communities", "infomap"}, exitBadInput},
		{"missing community file", []string{"experiment", "graph", "--graph", "karate", "--communities", "file:/nonexistent.csv"}, exitBadInput},
		{"positional argument", []string{"experiment", "line", "extra"}, exitUsage},
	}
	for _, c := range cases {
		out, code := runExperimentCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.code, out)
		}
	}
}

// experiment graph --time-budget calibrates σ on the proven upper bound
// that the budget reaches, as a release with --time-budget would, and says
// so (delta2Exact false); without a budget Δ2 is exact. The bound must lie
// at or above the exact value, and σ follow it.
func TestExperimentGraphTimeBudget(t *testing.T) {
	type result struct {
		Delta2      float64
		Sigma       float64
		Delta2Exact *bool
	}
	run := func(budget string) result {
		out, code := runExperimentCLI(t, "experiment", "graph", "--graph", "pa:n=6000,m=2", "--tau", "0.1", "--epsilon", "1",
			"--delta", "1e-5", "--trials", "3", "--communities", "leiden", "--time-budget", budget, "-o", "json")
		if code != 0 {
			t.Fatalf("--time-budget %s: exit %d: %s", budget, code, out)
		}
		validate(t, "experiment-graph", out)
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("--time-budget %s: %v\n%s", budget, err, out)
		}
		return r
	}
	exact, bounded := run("0"), run("1ms")
	if exact.Delta2Exact == nil || !*exact.Delta2Exact {
		t.Errorf("no budget: delta2Exact %v, want true", exact.Delta2Exact)
	}
	if bounded.Delta2Exact == nil || *bounded.Delta2Exact {
		t.Fatalf("--time-budget 1ms: delta2Exact %v, want false (Δ2 %g, exact %g)", bounded.Delta2Exact, bounded.Delta2, exact.Delta2)
	}
	if !(bounded.Delta2 >= exact.Delta2) {
		t.Errorf("--time-budget 1ms: Δ2 %g is below the exact %g: not an upper bound", bounded.Delta2, exact.Delta2)
	}
	// σ scales linearly with Δ2 at fixed (ε, δ).
	if want := exact.Sigma * bounded.Delta2 / exact.Delta2; math.Abs(bounded.Sigma-want) > 1e-9*want {
		t.Errorf("--time-budget 1ms: σ %g, want %g (the exact run's σ scaled to the bound)", bounded.Sigma, want)
	}
	if _, code := runExperimentCLI(t, "experiment", "graph", "--graph", "karate", "--time-budget", "-1s"); code != exitUsage {
		t.Errorf("--time-budget -1s: exit %d, want %d", code, exitUsage)
	}
}

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestPlanRunAgainReusesItsWork: a plan run again on the same graph and
// parameters reads Δ2, the answer's certificate, its audits and every forecast from its
// --cache-dir — the same report, each forecast marked reused, nothing
// simulated or certified again (the log says so) — and a plan at another
// seed reuses Δ2 and the certificate but no forecast.
func TestPlanRunAgainReusesItsWork(t *testing.T) {
	isolateConfig(t)
	dir := filepath.Join(t.TempDir(), "work")
	plan := func(seed string) (map[string]any, string) {
		t.Helper()
		out, stderr, code := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--epsilon", "1,4",
			"--trials", "30", "--random-seed", seed, "--cache-dir", dir, "--log-level", "info", "-o", "json")
		if code != 0 {
			t.Fatalf("plan: exit %d: %s", code, stderr)
		}
		validate(t, "plan", out)
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return rep, stderr
	}
	first, log1 := plan("1")
	again, log2 := plan("1")
	if strings.Contains(log1, "forecast reused") || !strings.Contains(log2, "forecast reused") ||
		!strings.Contains(log2, "Δ2 reused") || !strings.Contains(log2, "reused from the certificate") ||
		strings.Contains(log1, "answer audit reused") || !strings.Contains(log2, "answer audit reused") {
		t.Fatalf("the logs do not say what was reused:\nfirst:\n%s\nagain:\n%s", log1, log2)
	}
	forecasts := func(rep map[string]any) []any { return rep["plan"].(map[string]any)["forecasts"].([]any) }
	for i, f := range forecasts(again) {
		row := f.(map[string]any)
		if row["reused"] != true {
			t.Fatalf("row %d not marked reused: %v", i, row)
		}
	}
	strip(first)
	strip(again)
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("the report run again differs:\n%v\n%v", first, again)
	}
	_, log3 := plan("2")
	if strings.Contains(log3, "forecast reused") || !strings.Contains(log3, "Δ2 reused") {
		t.Fatalf("another seed: forecasts must be simulated, Δ2 reused:\n%s", log3)
	}
}

// strip removes what differs between two runs of one plan: the times, the
// reuse marks, and whether the answer's model was restored.
func strip(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"computeMillis", "reused", "restored"} {
			delete(x, k)
		}
		for _, e := range x {
			strip(e)
		}
	case []any:
		for _, e := range x {
			strip(e)
		}
	}
}

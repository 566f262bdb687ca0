package main

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// snakeKeys returns the object keys in v that are not camelCase.
func snakeKeys(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.ContainsAny(k, "_- ") {
				*out = append(*out, path+"."+k)
			}
			snakeKeys(e, path+"."+k, out)
		}
	case []any:
		for _, e := range x {
			snakeKeys(e, path+"[]", out)
		}
	}
}

// JSON contract: locate's report mixed no_source, top90_nodes
// and total_mass with camelCase, called PROBABILITY "share", and listed
// internal indices as top90_nodes. Every command's JSON is camelCase and
// names nodes by key.
func TestJSONCamelCaseAndKeys(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	docs := map[string][]string{
		"locate":      {"locate", "--graph", "karate", "--release", rel},
		"sensitivity": {"sensitivity", "--graph", "karate"},
		"calibrate":   {"calibrate", "--sensitivity", "1"},
		"budget":      {"budget", "--ledger", filepath.Join(dir, "l.json")},
		"version":     {"version"},
		"config":      {"config", "show"},
	}
	for name, args := range docs {
		out, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "-o", "json")...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m, ok := v.(map[string]any); !ok || m["schemaVersion"] != 1.0 || !strings.HasPrefix(out, "{\n  \"schemaVersion\": 1") {
			t.Errorf("%s: document does not start with schemaVersion 1: %.80s", name, out)
		}
		var bad []string
		snakeKeys(v, name, &bad)
		if len(bad) > 0 {
			t.Errorf("%s: keys not in camelCase: %v", name, bad)
		}
		if name != "locate" {
			continue
		}
		var loc struct {
			Report struct {
				Top90Nodes  []string
				Communities []struct{ Probability float64 }
			}
		}
		if err := json.Unmarshal([]byte(out), &loc); err != nil {
			t.Fatalf("top90Nodes are not node keys: %v", err)
		}
		if len(loc.Report.Top90Nodes) == 0 || loc.Report.Top90Nodes[0] != "1" || loc.Report.Communities[0].Probability <= 0 {
			t.Errorf("report %+v: want node keys (the source, karate node \"1\", first) and probabilities", loc.Report)
		}
	}
}

// checkPositiveFlag refuses what errkind.CheckPositive refuses, with the same
// exit code and the same words, naming the flag as the user typed it.
func TestCheckPositiveFlag(t *testing.T) {
	for _, v := range []float64{1, 1e-300, math.MaxFloat64, 0, -1, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)} {
		got, want := checkPositiveFlag("tau", v), errkind.CheckPositive("tau", v)
		if (got == nil) != (want == nil) || exitCode(got) != exitCode(want) {
			t.Errorf("%v: %v (exit %d), job says %v (exit %d)", v, got, exitCode(got), want, exitCode(want))
			continue
		}
		if got != nil && flagText(got) != flagText(want) {
			t.Errorf("%v: %q, job's words through the flag names %q", v, flagText(got), flagText(want))
		}
	}
}

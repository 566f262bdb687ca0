package main

import (
	"context"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/demo"
)

func TestDemo(t *testing.T) {
	isolateConfig(t)
	pic := filepath.Join(t.TempDir(), "demo.png")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "demo", "--plot", pic, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"graph", "nodeCount", "source", "sourceCommunity", "delta2", "sigma", "rho", "estimator",
		"status", "report", "plot", "topCommunityIsSource"} {
		if _, ok := s[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if s["nodeCount"] != 500.0 || !(s["sigma"].(float64) > 0) || s["plot"] != pic {
		t.Errorf("summary %v", s)
	}
	// Shares of the ranked communities sum to 1, ranks are 1..k.
	comms := s["report"].(map[string]any)["communities"].([]any)
	sum := 0.0
	for i, c := range comms {
		m := c.(map[string]any)
		sum += m["probability"].(float64)
		if m["rank"] != float64(i+1) {
			t.Errorf("rank %v at position %d", m["rank"], i)
		}
	}
	if len(comms) < 2 || sum < 1-1e-9 || sum > 1+1e-9 {
		t.Errorf("%d communities with shares summing to %v", len(comms), sum)
	}
	f, err := os.Open(pic)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("picture is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("picture is %v", b)
	}
}

func TestDemoTableAndErrors(t *testing.T) {
	isolateConfig(t)
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "demo", "--plot", "", "--source", "34")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"RANK", "COMMUNITY", "PROBABILITY", "← true source", "planted source: node 34"} {
		if !strings.Contains(stdout, want) && !strings.Contains(stdout, "no detectable source") {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"demo", "--source", "9999", "--plot", ""}, exitBadInput},
		{[]string{"demo", "--graph", "karate", "--source", "35", "--plot", ""}, exitBadInput},
		{[]string{"demo", "--epsilon", "0", "--plot", ""}, exitBadInput},
		{[]string{"demo", "--graph", "neo4j"}, exitUsage},
		{[]string{"demo", "extra"}, exitUsage},
	} {
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
	}
}

// demoSpec turns demo's flags into the demo's spec, or refuses them
// naming the flag, before anything runs.
func TestDemoSpec(t *testing.T) {
	ok := demoOptions{graph: "karate", source: "34", tau: 1, epsilon: 8, delta: 1e-5}
	for _, c := range []struct {
		name   string
		change func(*demoOptions)
		code   int
		msg    string
	}{
		{"valid", func(*demoOptions) {}, 0, ""},
		{"neo4j", func(o *demoOptions) { o.graph = "neo4j" }, exitUsage, "embedded graph"},
		{"tau", func(o *demoOptions) { o.tau = 0 }, exitBadInput, "--tau: invalid value 0"},
		{"epsilon NaN", func(o *demoOptions) { o.epsilon = math.NaN() }, exitBadInput, "--epsilon: invalid value NaN"},
		{"delta 1", func(o *demoOptions) { o.delta = 1 }, exitBadInput, "--delta: invalid value 1"},
		{"plot", func(o *demoOptions) { o.plot = "x.gif" }, exitBadInput, "--plot"},
	} {
		o := ok
		c.change(&o)
		spec, err := demoSpec(&o)
		if c.code == 0 {
			want := demo.Spec{Graph: "karate", Source: "34", Tau: 1, Epsilon: 8, Delta: 1e-5}
			if err != nil || !reflect.DeepEqual(spec, want) {
				t.Errorf("%s: %+v, %v; want %+v", c.name, spec, err, want)
			}
			continue
		}
		if err == nil || exitCode(err) != c.code || !strings.Contains(errorMessage(err), c.msg) {
			t.Errorf("%s: %v (exit %d), want exit %d naming %q", c.name, err, exitCode(err), c.code, c.msg)
		}
	}
}

// demo's help describes the picture it draws.
func TestDemoHelpDescribesPicture(t *testing.T) {
	stdout, _, _ := runPipelineCLI(t, context.Background(), nil, "demo", "--help")
	if strings.Contains(stdout, "bar chart") {
		t.Errorf("demo --help promises a bar chart; it draws the graph:\n%s", stdout)
	}
}

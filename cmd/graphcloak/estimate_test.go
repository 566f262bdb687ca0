package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// The estimates the commands print (package cost), under the names these
// tests read them by.
type (
	workEstimate struct{ cost.Estimate }
	planEstimate = cost.PlanEstimate
	estimateStep = cost.Step
)

// runEstimate runs a command with --estimate -o json and decodes it.
func runEstimate(t *testing.T, args ...string) workEstimate {
	t.Helper()
	var out, errb strings.Builder
	if code := runArgs(context.Background(), append(args, "--estimate", "-o", "json"), &out, &errb); code != 0 {
		t.Fatalf("%v --estimate: exit %d: %s", args, code, errb.String())
	}
	var e workEstimate
	if err := json.Unmarshal([]byte(out.String()), &e); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	sum := 0.0
	for _, s := range e.Steps {
		sum += s.Seconds
	}
	if math.Abs(sum-e.Seconds) > 1e-9*math.Max(1, sum) {
		t.Errorf("%v: seconds %g, the steps add up to %g", args, e.Seconds, sum)
	}
	return e
}

// step is e's step named name (nil: none).
func (e workEstimate) step(name string) *estimateStep {
	for i := range e.Steps {
		if e.Steps[i].Step == name {
			return &e.Steps[i]
		}
	}
	return nil
}

// TestReleaseEstimate: release --estimate writes, charges and reads
// nothing (no release file, the ledger byte for byte, a readings file
// that a release would refuse is not parsed), models Δ2 with the model sensitivity --dry-run
// prints (the same seconds on the dense path, which times nothing), and
// the dry run's forecasts by cost.DryRunForecastsOn at the trial times it
// measured: the unit forecast two rounds, the private answer's one (at its
// own trials' time), the forecast by source mass nine unit forecasts.
func TestReleaseEstimate(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger, "--epsilon-total", "10", "--delta-total", "1e-5")
	before, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "release.json")
	// Not readings: a release would refuse them; the estimate does not read them.
	values := filepath.Join(dir, "not-readings.csv")
	if err := os.WriteFile(values, []byte("node,value\nnot,a,reading\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"release", "--graph", "karate", "--values", values, "--ledger", ledger, "--out", out}
	e := runEstimate(t, common...)
	if after, _ := os.ReadFile(ledger); !bytes.Equal(before, after) {
		t.Errorf("the ledger changed")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out exists after --estimate: %v", err)
	}
	g, _, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	want := sensitivity.ChooseMethod(g, 1, sensitivity.Options{})
	d2 := e.step("Δ2 at τ = 1")
	if e.Command != "release" || e.step("load the graph") == nil || d2 == nil || d2.Seconds != want.Seconds || !strings.HasPrefix(d2.Model, want.Name()) {
		t.Fatalf("%+v; want the load and Δ2 at %g s by %s", e, want.Seconds, want.Name())
	}
	if e.step("forecast trials") != nil || e.step("write-back") != nil {
		t.Errorf("a release without --refuse-at-chance on a file graph forecasts nothing and writes nothing back: %+v", e.Steps)
	}
	dry := runEstimate(t, append(common, "--dry-run", "--forecast-trials", "50")...)
	unit, ans, curve := dry.step("forecast trials"), dry.step("private-answer forecast"), dry.step("forecast by source mass")
	if dry.Command != "release --dry-run" || unit == nil || ans == nil || curve == nil {
		t.Fatalf("the dry run's forecasts are missing: %+v", dry.Steps)
	}
	// Karate's Δ2 is modelled far below 10 s: the dry run computes it.
	if s := dry.step("Δ2 at τ = 1"); s == nil || s.Seconds != want.Seconds {
		t.Errorf("the dry run's Δ2: %+v", s)
	}
	// The answer's forecast ends with its calibration: at least one
	// community's spread over the (connected) graph.
	if one := privacy.CalibrationSeconds(g, make([]int, g.N())); !(ans.Seconds >= one) || !strings.Contains(ans.Model, ", then its calibration (") {
		t.Errorf("the answer's forecast %+v, want its calibration (≥ %g s) priced", ans, one)
	}
	// The unit forecast is two rounds, the curve the grid's other eight
	// masses at three rounds each (the unit forecast is its 1-unit
	// point); the answer's round is priced at its own trials' time.
	round := unit.Seconds / cost.ForecastRounds
	if !(unit.Seconds > 0 && ans.Seconds > 0) || math.Abs(curve.Seconds-float64(cost.MassPoints(false)*cost.MassRounds)*round) > 1e-12 || cost.MassPoints(false) != 8 ||
		!strings.HasPrefix(unit.Model, fmt.Sprintf("%d round(s) of up to 50 trials at ", cost.ForecastRounds)) || !strings.HasPrefix(ans.Model, "1 round(s) of up to 50 trials at ") {
		t.Errorf("unit %+v, answer %+v, curve %+v: want the unit forecast %d rounds, the curve 8 masses of %d rounds", unit, ans, curve, cost.ForecastRounds, cost.MassRounds)
	}
}

// TestLocateAndLoadEstimate: locate --estimate on a release prices the
// forecast's rounds and detects Leiden by its model; with
// --private-answer it prices the audit as audit --estimate does
// ((S + C + 2R)·K·(2|E|+n) steps) and its forecast as the audit's exact one; load --estimate counts the edge list's nodes and
// relationships and prices the write at the reference rate, naming the
// graph of --graph. Nothing is written: no per-node file.
func TestLocateAndLoadEstimate(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	perNode := filepath.Join(dir, "nodes.csv")
	e := runEstimate(t, "locate", "--graph", "karate", "--release", rel, "--out", perNode, "--forecast-trials", "30")
	if _, err := os.Stat(perNode); !os.IsNotExist(err) {
		t.Errorf("--out exists after --estimate: %v", err)
	}
	if e.Tau != 0.2 || e.step("communities") == nil || e.step("forecast trials") == nil ||
		!strings.HasPrefix(e.step("forecast trials").Model, "2 round(s) of 30 trials at ") {
		t.Errorf("locate --estimate: %+v (τ %g: want the release's 0.2)", e.Steps, e.Tau)
	}
	a := runEstimate(t, "locate", "--graph", "karate", "--private-answer", "--values", "-", "--tau", "0.5")
	g, _, _ := laplacian.Generate("karate")
	audit := a.step("answer audit")
	if audit == nil || audit.Audit == nil || audit.Audit.Sources != g.N()+min(g.N(), 256) {
		t.Fatalf("the private answer's audit: %+v", a.Steps)
	}
	// Its forecast is the audit's exact rates (the answer is drawn only
	// when the audit passed): no trials to price or to time.
	if f := a.step("private-answer forecast"); f == nil || f.Seconds != 0 || !strings.HasPrefix(f.Model, "exact") {
		t.Errorf("the private answer's forecast: %+v, want exact at 0 s", f)
	}
	l := runEstimate(t, "load", "--edges", karateEdges(t, dir), "--node-labels", "P", "--relationship-types", "K", "--node-key-property", "id")
	w := l.step("write to Neo4j")
	if l.NodeCount != g.N() || l.Edges != g.NumEdges() || w == nil || math.Abs(w.Seconds-float64(g.N()+g.NumEdges())*cost.LoadWriteMicros*1e-6) > 1e-12 {
		t.Errorf("load --estimate: %+v", l)
	}
	// With --graph it names that graph (it named none).
	if l := runEstimate(t, "load", "--graph", "karate", "--node-labels", "P", "--relationship-types", "K", "--node-key-property", "id"); l.Graph != "karate" || l.NodeCount != g.N() {
		t.Errorf("load --estimate --graph karate: graph %q, %d nodes", l.Graph, l.NodeCount)
	}
}

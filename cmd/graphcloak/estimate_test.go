package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/forecast"
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
// the dry run's forecasts by cost.DryRunForecasts at the trial times it
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
// (2·S·K·(2|E|+n) steps); load --estimate counts the edge list's nodes and
// relationships and prices the write at the reference rate. Nothing is
// written: no per-node file.
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
	l := runEstimate(t, "load", "--edges", karateEdges(t, dir), "--node-labels", "P", "--relationship-types", "K", "--node-key-property", "id")
	w := l.step("write to Neo4j")
	if l.NodeCount != g.N() || l.Edges != g.NumEdges() || w == nil || math.Abs(w.Seconds-float64(g.N()+g.NumEdges())*cost.LoadWriteMicros*1e-6) > 1e-12 {
		t.Errorf("load --estimate: %+v", l)
	}
}

// TestSensitivityEstimateCountsTimeSoFar: the sensitivity command's line
// is the time since it began (its load and Δ2's model) plus Δ2's modelled
// time, named apart; it is said once their sum passes longStep, and not
// while it is below.
func TestSensitivityEstimateCountsTimeSoFar(t *testing.T) {
	gr, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	want := sensitivity.ChooseMethod(gr, 1, sensitivity.Options{})
	if want.Seconds >= longStep.Seconds()/2 {
		t.Fatalf("Δ2 modelled at %g s: the test needs a graph under %v", want.Seconds, longStep/2)
	}
	var buf bytes.Buffer
	sayDelta2Estimate(&globalOptions{stderr: &buf}, gr, 1, sensitivity.Options{}, time.Now())
	if buf.Len() != 0 {
		t.Errorf("Δ2 modelled at %.2g s, just begun: said %q", want.Seconds, buf.String())
	}
	// Begun long ago (10 longSteps): the so-far dwarfs Δ2's model even
	// when a loaded machine's pilot times it several times slower, so a
	// model that counted the so-far again would show.
	const began = 10 * longStep
	sayDelta2Estimate(&globalOptions{stderr: &buf}, gr, 1, sensitivity.Options{}, time.Now().Add(-began))
	line := strings.TrimSpace(buf.String())
	re := regexp.MustCompile(`^estimated (.+) for the sensitivity \((.+) so far, Δ2 at τ = 1 (.+): (\S+), modelled`)
	m := re.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("line %q", line)
	}
	method := m[4]
	T, S, D := humanSeconds(t, m[1]), humanSeconds(t, m[2]), humanSeconds(t, m[3])
	// Each of the three is told to its rounding (humanResolution): their
	// sum within the three.
	if S < began.Seconds() || math.Abs(T-(S+D)) > humanResolution(T)+humanResolution(S)+humanResolution(D)+0.01 || method != want.Name() || D > began.Seconds()/2 {
		t.Errorf("line %q: %g s = %g s so far + %g s of %s, want ≥ %v so far and Δ2 by %s", line, T, S, D, method, began, want.Name())
	}
}

// humanResolution is how far answer.HumanDuration's text of s seconds
// may be from s under an hour: a tenth's rounding under 10 s, a second's
// under a minute, a floored second above.
func humanResolution(s float64) float64 {
	switch {
	case s < 10:
		return 0.05
	case s < 60:
		return 0.5
	}
	return 1
}

// humanSeconds reads back answer.HumanDuration under an hour.
func humanSeconds(t *testing.T, s string) float64 {
	t.Helper()
	var m, sec float64
	if _, err := fmt.Sscanf(s, "%g min %g s", &m, &sec); err == nil {
		return 60*m + sec
	}
	if _, err := fmt.Sscanf(s, "%g s", &sec); err == nil {
		return sec
	}
	t.Fatalf("duration %q", s)
	return 0
}

// TestGraphExperimentEstimate: the graph experiment's line sums
// community detection (Leiden asked for), Δ2 at each τ (its cost model)
// and each τ's trials (ε × trials at cost.PerNodeTrialSeconds), and is said
// once over longStep (10 000 trials here), with the time since the command
// began (Δ2's models). Past cost.GuessDeadline the guess (cost.Delta2Guess
// for Δ2's model and run) is said first, the same sum; before it, never.
func TestGraphExperimentEstimate(t *testing.T) {
	gr, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	o := &graphOptions{taus: []float64{1, 2}, epsilons: []float64{1, 4}, communities: "leiden", trials: 10_000}
	sum := func(line, delta2 string) (total, parts float64, m []string) {
		m = regexp.MustCompile(`^estimated (.+) for the experiment \((?:so far (.+), )?communities (.+), Δ2 at τ = 1` + delta2 + ` (.+), trials at τ = 1 (.+), Δ2 at τ = 2` + delta2 + ` (.+), trials at τ = 2 (.+)\)$`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q", line)
		}
		for _, s := range m[2:] {
			if s != "" {
				parts += humanSeconds(t, s)
			}
		}
		return humanSeconds(t, m[1]), parts, m
	}
	for _, late := range []bool{false, true} {
		began := time.Now().Add(time.Hour) // the model is never late
		if late {
			began = time.Now().Add(-cost.GuessDeadline)
		}
		var buf bytes.Buffer
		var mu sync.Mutex
		say := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(p) })
		sayGraphExperimentEstimate(&globalOptions{stderr: say}, o, o.simulation(gr, nil, nil, privacy.MechanismDefault), began)
		mu.Lock()
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		mu.Unlock()
		if want := map[bool]int{false: 1, true: 2}[late]; len(lines) != want {
			t.Fatalf("late %v: said %q, want %d lines", late, lines, want)
		}
		// Each part is rendered to 0.1 s under 10 s, to 1 s under a minute.
		T, parts, m := sum(lines[len(lines)-1], "")
		if math.Abs(T-parts) > 0.02*T+6 || T <= longStep.Seconds() {
			t.Errorf("line %q: %g s, its parts %g s", lines[len(lines)-1], T, parts)
		}
		// The modelled line counts the time since began (Δ2's models in it).
		if so := m[2]; late && (so == "" || humanSeconds(t, so) < cost.GuessDeadline.Seconds()) || !late && so != "" {
			t.Errorf("late %v: line %q, time so far %q", late, lines[len(lines)-1], so)
		}
		if late {
			T, parts, m := sum(lines[0], " guessed")
			if math.Abs(T-parts) > 0.02*T+6 {
				t.Errorf("guess %q: %g s, its parts %g s", lines[0], T, parts)
			}
			for i, tau := range o.taus {
				if g, want := humanSeconds(t, m[4+2*i]), cost.Delta2Guess(gr, tau, sensitivity.Options{}); math.Abs(g-want) > 0.05*want+0.1 {
					t.Errorf("guess %q: Δ2 at τ = %g %g s, cost.Delta2Guess %g s", lines[0], tau, g, want)
				}
			}
		}
	}
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestAnswerExperimentEstimate: the private-answer experiment's line is
// the time so far, each τ's trials (trials × cost.AnswerTrialSecondsAt), each
// τ and ε's calibration (privacy.CalibrationSeconds) and each ε's ceiling
// (forecast.RoutedCeilingSeconds), summed; none without a partition.
func TestAnswerExperimentEstimate(t *testing.T) {
	gr, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, gr.N())
	for v := range part {
		part[v] = v % 80 / 20 // four bands of columns
	}
	o := &graphOptions{taus: []float64{1, 2}, epsilons: []float64{1, 4, 8}, trials: 10_000}
	var buf bytes.Buffer
	sayAnswerExperimentEstimate(&globalOptions{stderr: &buf}, o, o.simulation(gr, nil, nil, privacy.MechanismDefault), time.Now())
	if buf.Len() != 0 {
		t.Fatalf("said %q without a partition", buf.String())
	}
	sayAnswerExperimentEstimate(&globalOptions{stderr: &buf}, o, o.simulation(gr, part, nil, privacy.MechanismDefault), time.Now().Add(-time.Second))
	line := strings.TrimSpace(buf.String())
	m := regexp.MustCompile(`^estimated (.+) for the experiment \(so far (.+), trials at τ = 1 (.+), trials at τ = 2 (.+), calibrations (.+), ceilings (.+)\)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("line %q", line)
	}
	sum := 0.0
	for _, s := range m[2:] {
		sum += humanSeconds(t, s)
	}
	if T := humanSeconds(t, m[1]); math.Abs(T-sum) > 0.02*T+6 || T <= longStep.Seconds() {
		t.Errorf("line %q: %g s, its parts %g s", line, T, sum)
	}
	if so := humanSeconds(t, m[2]); so < 1 || so > 60 {
		t.Errorf("line %q: %g s so far, began a second ago", line, so)
	}
	cal := 2 * 3 * privacy.CalibrationSeconds(gr, part)
	ceil := 3 * forecast.RoutedCeilingSeconds(gr.N(), 4)
	for i, want := range []float64{cal, ceil} {
		if got := humanSeconds(t, m[5+i]); math.Abs(got-want) > 0.05*want+0.1 {
			t.Errorf("line %q: part %d %g s, want %g s", line, 5+i, got, want)
		}
	}
	for i, tau := range o.taus {
		per, _ := cost.AnswerTrialSecondsAt(gr, tau, o.trials, cost.TrialStepSeconds(gr))
		// The step rate is measured again: a few per cent apart on a quiet
		// machine, up to 1.6× under CI's load (-race beside other
		// packages); a factor 3 still tells trials × per-trial from one
		// trial or a block (≥ 10× apart).
		if got, want := humanSeconds(t, m[3+i]), float64(o.trials)*per; !(got > want/3 && got < 3*want) {
			t.Errorf("line %q: trials at τ = %g %g s, want about %g s", line, tau, got, want)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// dirBytes is every file in dir with its bytes.
func dirBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

type dryRunSummary struct {
	DryRun, AlreadyPublished bool
	Step                     string
	Rho, Sigma, RhoSpent     float64
	Balance                  *struct{ RhoSpent, RhoRemaining, RhoBudget float64 }
}

// release --dry-run plans affordability as the release does, reading the
// ledger and writing nothing: no ledger is refused as for the release
// (exit 3, the budget --init command named) and none is created; within
// budget it prints the balance and the ρ the release then charges; an
// epoch already published to its --out would do nothing (exit 0), one
// charged elsewhere is refused (exit 7), a charge over budget is refused
// (exit 5) — each exactly as the release — and the ledger's directory is
// byte-identical after every dry run (no lock file made either).
func TestReleaseDryRunReadsTheLedger(t *testing.T) {
	isolateConfig(t)
	dir, ledgerDir := t.TempDir(), t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(ledgerDir, "ledger.json")
	out := filepath.Join(dir, "release.json")
	release := func(epsilon, epoch string, args ...string) (string, string, int) {
		return runPipelineCLI(t, context.Background(), nil, append([]string{"release", "--graph", "karate", "--values", readings,
			"--ledger", ledger, "--tau", "1", "--epsilon", epsilon, "--delta", "1e-6", "--epoch", epoch}, args...)...)
	}
	dry := func(epsilon, epoch string, args ...string) (dryRunSummary, string, int) {
		t.Helper()
		before := dirBytes(t, ledgerDir)
		stdout, stderr, code := release(epsilon, epoch, append(args, "--dry-run", "-o", "json")...)
		if after := dirBytes(t, ledgerDir); len(after) != len(before) || (len(before) > 0 && after["ledger.json"] != before["ledger.json"]) {
			t.Fatalf("the dry run changed the ledger's directory: %d files, then %d", len(before), len(after))
		}
		var sum dryRunSummary
		if code == 0 {
			validate(t, "release", stdout)
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil || !sum.DryRun {
				t.Fatalf("dry run output %v: %s", err, stdout)
			}
		}
		return sum, stderr, code
	}

	_, stderr, code := dry("1", "e1", "--out", out)
	_, relErr, relCode := release("1", "e1", "--out", out)
	if code != exitBadInput || relCode != code || !strings.Contains(stderr, "budget --init") || !strings.Contains(relErr, "budget --init") {
		t.Fatalf("no ledger: dry run exit %d (%s), release exit %d (%s); want 3 naming budget --init", code, stderr, relCode, relErr)
	}
	if len(dirBytes(t, ledgerDir)) != 0 {
		t.Fatal("a release without a ledger created one")
	}
	initTestLedger(t, ledger)
	os.Remove(privacy.LockPath(ledger))

	plan, stderr, code := dry("1", "e1", "--out", out)
	if code != 0 || plan.Step != "fresh" || plan.Balance == nil || plan.Balance.RhoSpent != 0 || !(plan.Balance.RhoRemaining > 0) || !(plan.Rho > 0) {
		t.Fatalf("dry run exit %d (%s): %+v", code, stderr, plan)
	}
	table, _, _ := release("1", "e1", "--out", out, "--dry-run")
	for _, want := range []string{"release would", "charge ρ", "budget now", "budget after"} {
		if !strings.Contains(table, want) {
			t.Errorf("the dry run's table lacks %q:\n%s", want, table)
		}
	}
	stdout, stderr, code := release("1", "e1", "--out", out, "-o", "json")
	var sum dryRunSummary
	if code != 0 || json.Unmarshal([]byte(stdout), &sum) != nil || sum.Rho != plan.Rho || sum.Sigma != plan.Sigma || sum.RhoSpent != plan.Rho {
		t.Fatalf("release exit %d (%s): ρ %v σ %v spent %v; the dry run said ρ %v σ %v from spent 0", code, stderr, sum.Rho, sum.Sigma, sum.RhoSpent, plan.Rho, plan.Sigma)
	}

	// The same epoch: already published to its --out, refused elsewhere.
	if plan, stderr, code = dry("1", "e1", "--out", out); code != 0 || plan.Step != "already published" || !plan.AlreadyPublished {
		t.Errorf("dry run of the published epoch: exit %d (%s), %+v", code, stderr, plan)
	}
	other := filepath.Join(dir, "other.json")
	_, stderr, code = dry("1", "e1", "--out", other)
	if _, relErr, relCode = release("1", "e1", "--out", other); code != exitChargedEpoch || relCode != code {
		t.Errorf("the charged epoch to another --out: dry run exit %d (%s), release exit %d (%s); want 7", code, stderr, relCode, relErr)
	}

	// Over budget: ε = 20 against a budget of ε = 10.
	_, stderr, code = dry("20", "e2", "--out", filepath.Join(dir, "e2.json"))
	_, relErr, relCode = release("20", "e2", "--out", filepath.Join(dir, "e2.json"))
	if code != exitBudgetExhausted || relCode != code {
		t.Errorf("over budget: dry run exit %d (%s), release exit %d (%s); want 5", code, stderr, relCode, relErr)
	}
}

// A keyed ledger: the dry run needs --ledger-key as the release does; a
// missing key is the same refusal (exit 3), and with the key it plans.
func TestReleaseDryRunKeyedLedger(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger, key := filepath.Join(dir, "ledger.json"), filepath.Join(dir, "ledger.key")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "keygen", "--out", key); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, stderr)
	}
	initTestLedger(t, ledger, "--ledger-key", key)
	args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--out", filepath.Join(dir, "r.json")}
	_, dryErr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--dry-run")...)
	_, relErr, relCode := runPipelineCLI(t, context.Background(), nil, args...)
	if code != exitBadInput || relCode != code || !strings.Contains(dryErr, "--ledger-key") || !strings.Contains(relErr, "--ledger-key") {
		t.Errorf("without the key: dry run exit %d (%s), release exit %d (%s); want 3 naming --ledger-key", code, dryErr, relCode, relErr)
	}
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--dry-run", "--ledger-key", key)...); code != 0 {
		t.Errorf("with the key: dry run exit %d: %s", code, stderr)
	}
}

// locate --private-answer on a graph outside Neo4j with the Neo4j ledger
// connects for the ledger alone: an unreachable server is exit 4 (it was a
// nil client's panic), for the dry run as for the answer.
func TestPrivateAnswerNeo4jLedgerOnly(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	args := []string{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--tau", "1", "--epsilon", "0.5",
		"--ledger", "neo4j", "--scope", "s", "--epoch", "e", "--uri", "bolt://127.0.0.1:1", "--connect-timeout", "2"}
	for _, extra := range [][]string{{"--dry-run"}, nil} {
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, extra...)...); code != exitDBUnreachable {
			t.Errorf("%v: exit %d, want %d (unreachable): %s", extra, code, exitDBUnreachable, stderr)
		}
	}
}

// The dry run prints the σ the release uses, to
// the last digit (grid widening included); "exact" is claimed only for a
// relative slack ≤ 1e-6; τ out of range exits 3; -o json survives NaN/Inf.
func TestHonestNumbers(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	common := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--tau", "0.7",
		"--epsilon", "0.8", "--delta", "1e-6", "-o", "json"}
	sigmaOf := func(args ...string) float64 {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append(common, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatal(err)
		}
		return m["sigma"].(float64)
	}
	dry := sigmaOf("--dry-run")
	real := sigmaOf("--out", filepath.Join(dir, "r.json"))
	if dry != real {
		t.Errorf("dry run σ = %.17g, release σ = %.17g", dry, real)
	}

	sens := func(tau string) map[string]any {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "sensitivity", "--graph", "karate", "--tau", tau, "-o", "json")
		if code != 0 {
			t.Fatalf("sensitivity --tau %s: exit %d: %s", tau, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := sens("1"); m["exact"] != true || m["relativeSlack"].(float64) > 1e-6 {
		t.Errorf("τ = 1: exact %v, relativeSlack %v", m["exact"], m["relativeSlack"])
	}
	// At τ = 1e5 the bound's certified slack is as large as the value: an
	// upper bound, not an exact value.
	if m := sens("1e5"); m["exact"] != false || !(m["relativeSlack"].(float64) > 1e-6) {
		t.Errorf("τ = 1e5: exact %v, relativeSlack %v; want not exact", m["exact"], m["relativeSlack"])
	}
	for _, args := range [][]string{
		{"sensitivity", "--graph", "karate", "--tau", "1e15", "-o", "json"},
		{"sensitivity", "--graph", "karate", "--tau", "1e300", "-o", "json"},
		append(append([]string{}, common...), "--dry-run", "--tau", "1e15"),
		append(append([]string{}, common...), "--dry-run", "--alpha", "1e300"),
	} {
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != exitBadInput || !strings.Contains(stderr, "range") {
			t.Errorf("%v: exit %d, want 3 naming the range: %s", args, code, stderr)
		}
	}
	var b strings.Builder
	type inner struct {
		X float64 `json:"x"`
		Y float64 `json:"y,omitempty"`
	}
	v := struct {
		A float64  `json:"a"`
		B *inner   `json:"b"`
		C []inner  `json:"c"`
		D string   `json:"d"`
		E *float64 `json:"e,omitempty"`
	}{A: math.Inf(1), B: &inner{X: math.NaN()}, C: []inner{{X: 1, Y: math.Inf(-1)}}, D: "ok"}
	if err := printJSON(&b, v); err != nil {
		t.Fatalf("printJSON with NaN/Inf: %v", err)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back["a"] != nil || back["b"].(map[string]any)["x"] != nil || back["c"].([]any)[0].(map[string]any)["x"] != 1.0 || back["d"] != "ok" {
		t.Errorf("printJSON fallback: %s", b.String())
	}
	if _, ok := back["e"]; ok {
		t.Errorf("omitempty not kept: %s", b.String())
	}
}

// TestReleaseDryRunForecast: the dry run shows both forecasts and charges
// nothing.
func TestReleaseDryRunForecast(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	releaseKarate(t, dir)
	ledger := filepath.Join(dir, "l.json")
	before, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values",
		filepath.Join(dir, "readings.csv"), "--ledger", ledger, "--epsilon", "1", "--delta", "1e-6", "--tau", "0.2",
		"--dry-run", "--forecast-trials", "30", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "release", stdout)
	var sum struct {
		Forecast struct {
			PerNode, PrivateAnswer struct {
				Mode              string
				CommunityAccuracy float64
				Chance            float64
				Trials            int
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	f := sum.Forecast
	if f.PerNode.Mode != "per-node" || f.PrivateAnswer.Mode != "private-answer" || f.PerNode.Trials != 30 || f.PerNode.Chance <= 0 {
		t.Fatalf("forecast %+v", f)
	}
	after, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
	if before != after {
		t.Fatalf("the dry run changed the ledger:\n%s\n%s", before, after)
	}
}

// TestDryRunVerdictBySourceMass (issue 48, item 1): the dry run does not
// state a flat verdict from unit sources. On the rooms example (a 40-unit
// source: locate answers on every release of it) the dry run printed
// "AT CHANCE … this release would answer noise" from 1-unit sources, and
// --refuse-at-chance refused the release. Now, with --source-mass 40, the
// dry run forecasts a 40-unit source and answers; without it the verdict
// is the forecast by source mass (the smallest mass it resolves), and
// --refuse-at-chance refuses only what is at chance at every mass up to
// 1000 units, or at a mass the operator stated — never on the readings.
func TestDryRunVerdictBySourceMass(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger, "--epsilon-total", "100", "--delta-total", "1e-3")
	release := func(extra ...string) (string, string, int) {
		args := append([]string{"release", "--graph", "file:" + roomsCSV, "--values", roomsReadings, "--tau", "1", "--epsilon", "1",
			"--delta", "1e-6", "--ledger", ledger, "--out", filepath.Join(dir, "r.json")}, extra...)
		return runPipelineCLI(t, context.Background(), nil, args...)
	}
	verdictOf := func(what string, extra ...string) map[string]any {
		t.Helper()
		out, stderr, code := release(append([]string{"--dry-run", "-o", "json"}, extra...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", what, code, stderr)
		}
		var sum map[string]any
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatal(err)
		}
		fc, _ := sum["forecast"].(map[string]any)
		v, _ := fc["verdict"].(map[string]any)
		if v == nil {
			t.Fatalf("%s: the dry run states no verdict: %v", what, fc)
		}
		return v
	}

	// A stated mass: the forecast of a 40-unit source, an answer.
	v := verdictOf("--source-mass 40", "--source-mass", "40")
	if v["atChance"] != false || v["sourceMass"] != 40.0 || !strings.HasPrefix(v["reason"].(string), "answer") {
		t.Errorf("--source-mass 40: verdict %v; want an answer for a 40-unit source", v)
	}
	table, stderr, code := release("--dry-run", "--source-mass", "40")
	if code != 0 || strings.Contains(table, "AT CHANCE") || !strings.Contains(table, "a source of 40 units") {
		t.Errorf("--source-mass 40: exit %d (%s), table:\n%s\nwant the forecast of a 40-unit source, not at chance", code, stderr, table)
	}

	// No stated mass: the forecast by source mass, not a flat verdict.
	v = verdictOf("no --source-mass")
	r, _ := v["resolvableMass"].(float64)
	if v["atChance"] != false || !(r > 0 && r <= 40) || !strings.HasPrefix(v["reason"].(string), "depends on the source mass") {
		t.Errorf("no --source-mass: verdict %v; want one that depends on the mass, resolving 40 units", v)
	}
	table, _, _ = release("--dry-run")
	if strings.Contains(table, "AT CHANCE") || !strings.Contains(table, "right community by source mass") ||
		!strings.Contains(table, "verdict             depends on the source mass") {
		t.Errorf("no --source-mass: the dry run's table states a flat verdict or no curve:\n%s", table)
	}

	// --refuse-at-chance: the release of the 40-unit readings goes
	// through; at a stated mass the forecast cannot resolve it is refused.
	if _, stderr, code := release("--refuse-at-chance"); code != 0 {
		t.Errorf("--refuse-at-chance without --source-mass: exit %d: %s; want the release (it resolves 40 units)", code, stderr)
	}
	_, stderr, code = release("--refuse-at-chance", "--epsilon", "0.01", "--source-mass", "1", "--out", filepath.Join(dir, "weak.json"))
	if code != 3 || !strings.Contains(stderr, "a source of 1 unit (--source-mass)") {
		t.Errorf("--refuse-at-chance --source-mass 1 at ε = 0.01: exit %d: %s; want the refusal at the stated mass (exit 3)", code, stderr)
	}
}

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs one command line in-process as main does (errors reported
// by reportError) and returns stdout, stderr and the exit code.
func runCLI(args ...string) (string, string, int) {
	var out, errb strings.Builder
	code := runArgs(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// Issue 34, finding 6 (quiet by default, no log line before a JSON
// error): a successful command writes nothing on stderr unless asked
// (--log-level info), and the failures of exit codes 3, 5 and 7 under -o
// json write exactly one JSON document on stderr. Before, INFO lines
// repeated the table and preceded the JSON errors.
func TestQuietByDefault(t *testing.T) {
	isolateConfig(t)
	if _, stderr, code := runCLI("sensitivity", "--graph", "karate"); code != 0 || stderr != "" {
		t.Errorf("sensitivity: exit %d, stderr %q; want nothing on stderr by default", code, stderr)
	}
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	release := func(out, epoch string, extra ...string) []string {
		return append([]string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--out", out,
			"--epoch", epoch, "--epsilon", "1", "--delta", "1e-7", "-o", "json"}, extra...)
	}
	if _, stderr, code := runCLI(release(filepath.Join(dir, "a.json"), "e1")...); code != 0 || stderr != "" {
		t.Fatalf("release: exit %d, stderr %q; want nothing on stderr by default", code, stderr)
	}
	if _, stderr, _ := runCLI(release(filepath.Join(dir, "a0.json"), "e0", "--log-level", "info")...); !strings.Contains(stderr, "level=INFO") {
		t.Errorf("--log-level info wrote no INFO line: %q", stderr)
	}
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"bad input (locate on another graph)", []string{"locate", "--graph", "sbm:sizes=17x17,pin=0.5,pout=0.05,seed=3",
			"--release", filepath.Join(dir, "a.json"), "-o", "json"}, exitBadInput},
		{"budget (ε 100 against a total of 10)", release(filepath.Join(dir, "b.json"), "e2", "--epsilon", "100"), exitBudgetExhausted},
		{"charged (epoch e1 to another file)", release(filepath.Join(dir, "c.json"), "e1"), exitChargedEpoch},
	}
	for _, tc := range cases {
		_, stderr, code := runCLI(tc.args...)
		var doc map[string]any
		if code != tc.code || json.Unmarshal([]byte(stderr), &doc) != nil {
			t.Errorf("%s: exit %d (want %d), stderr is not one JSON document:\n%s", tc.name, code, tc.code, stderr)
		}
	}
}

// Issue 34, finding 6 (affordability before Δ2): a release the budget
// cannot pay is refused before the graph is read and Δ2 computed (the
// log says neither happened); a re-run of a published epoch to its own
// file is said to be "already published" in the table.
func TestBudgetCheckedBeforeSensitivity(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	_, stderr, code := runCLI("release", "--graph", "karate", "--values", readings, "--ledger", ledger,
		"--out", filepath.Join(dir, "r.json"), "--epsilon", "100", "--delta", "1e-7", "--log-level", "info",
		"--sensitivity-cache", filepath.Join(dir, "d2.json"))
	if code != exitBudgetExhausted || !strings.Contains(stderr, "budget") {
		t.Fatalf("unaffordable release: exit %d, want %d: %s", code, exitBudgetExhausted, stderr)
	}
	if strings.Contains(stderr, "graph loaded") || strings.Contains(stderr, "computing Δ2") {
		t.Errorf("the unaffordable release read the graph or computed Δ2 before refusing:\n%s", stderr)
	}
	args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger,
		"--out", filepath.Join(dir, "r.json"), "--epoch", "monday", "--epsilon", "1", "--delta", "1e-7"}
	if _, stderr, code := runCLI(args...); code != 0 {
		t.Fatalf("release: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(args...)
	if code != 0 || !strings.Contains(out, "already published") {
		t.Errorf("re-run of epoch monday: exit %d, table does not say already published:\n%s%s", code, out, stderr)
	}
}

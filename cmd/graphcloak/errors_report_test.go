package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Terminal and JSON errors: errors under -o json are one JSON
// object on stderr (they were plain text); messages carry no package or
// function names ("privacy: Calibrate: "); --quiet and --log-level silence
// the INFO lines every command wrote.
func TestErrorsAndLogging(t *testing.T) {
	isolateConfig(t)
	run := func(args ...string) (string, string, int) {
		var out, errb strings.Builder
		code := runArgs(context.Background(), args, &out, &errb)
		return out.String(), errb.String(), code
	}
	_, stderr, code := run("calibrate", "--sensitivity", "-1", "-o", "json")
	var doc struct {
		SchemaVersion int
		Error         struct {
			Message, Kind string
			ExitCode      int
		}
	}
	if err := json.Unmarshal([]byte(stderr), &doc); err != nil || code != exitBadInput || doc.SchemaVersion != 1 ||
		doc.Error.Kind != "bad-input" || doc.Error.ExitCode != exitBadInput || doc.Error.Message == "" {
		t.Errorf("-o json error: exit %d, stderr %q (%v)", code, stderr, err)
	}
	_, stderr, _ = run("calibrate", "--sensitivity", "-1")
	if !strings.HasPrefix(stderr, "graphcloak: ") || strings.Contains(stderr, "privacy:") || strings.Contains(stderr, "Calibrate:") {
		t.Errorf("error names a package or function: %q", stderr)
	}
	if msg := errorMessage(errorString("privacy: Calibrate: config: x: laplacian: y")); msg != "x: y" {
		t.Errorf("errorMessage = %q", msg)
	}
	dir := t.TempDir()
	_, stderr, code = run("keygen", "--out", filepath.Join(dir, "k1"))
	_, quiet, qcode := run("sensitivity", "--graph", "karate", "--quiet")
	_, errOnly, ecode := run("sensitivity", "--graph", "karate", "--log-level", "error")
	if code != 0 || qcode != 0 || ecode != 0 || quiet != "" || errOnly != "" {
		t.Errorf("--quiet / --log-level error still wrote %q / %q (exit %d %d %d; %s)", quiet, errOnly, code, qcode, ecode, stderr)
	}
	if _, _, code := run("sensitivity", "--graph", "karate", "--log-level", "loud"); code != exitBadInput && code != exitUsage {
		t.Errorf("--log-level loud: exit %d", code)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// Quiet by default, no log line before a JSON error: a successful command writes nothing on stderr unless asked
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

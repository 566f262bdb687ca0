package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Shell completion completes the values of -o, --graph,
// --communities, --estimator and --mechanism.
func TestValueCompletion(t *testing.T) {
	isolateConfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"locate", "-o", ""}, "json"},
		{[]string{"sensitivity", "--graph", ""}, "karate"},
		{[]string{"locate", "--communities", ""}, "property:"},
		{[]string{"locate", "--estimator", ""}, "posterior"},
		{[]string{"release", "--mechanism", ""}, "discrete"},
	} {
		out, _, _ := runPrivacyCLI(t, append([]string{"__complete"}, tc.args...)...)
		if !slicesContains(strings.Split(out, "\n"), tc.want) {
			t.Errorf("completing %q: %q lacks %q", tc.args, out, tc.want)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Completion offered values that exit 3: each
// completed value of --mechanism and --communities is one the command
// accepts — run with it, none exits 2 or 3 for being of the wrong kind.
func TestCompletionsAreAccepted(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	complete := func(args ...string) []string {
		out, _, _ := runCLI(append([]string{"__complete"}, args...)...)
		var values []string
		for _, line := range strings.Split(out, "\n") {
			if line != "" && !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion") {
				values = append(values, strings.SplitN(line, "\t", 2)[0])
			}
		}
		return values
	}
	for _, v := range complete("communities", "--graph", "karate", "--communities", "") {
		if _, stderr, code := runCLI("communities", "--graph", "karate", "--communities", v); code != 0 {
			t.Errorf("communities --communities %s (completed): exit %d: %s", v, code, stderr)
		}
	}
	for i, v := range complete("release", "--mechanism", "") {
		args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--mechanism", v,
			"--epsilon", "0.5", "--delta", "1e-7", "--out", filepath.Join(dir, "r"+v+".json"), "--epoch", "c" + string(rune('a'+i))}
		if _, stderr, code := runCLI(args...); code != 0 {
			t.Errorf("release --mechanism %s (completed): exit %d: %s", v, code, stderr)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "-" is a standard stream where a flag takes rows
// and refused (exit 2, no file named "-") where it needs a file; one
// error format whatever the order of -o json and a bad flag; cobra's
// suggestions for misspelt commands and flags; misspelt GRAPHCLOAK_*
// variables warned about.
func TestDashSuggestionsAndVariables(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	t.Chdir(dir)
	out, stderr, code := runCLI("communities", "--graph", "karate", "--out", "-")
	if code != 0 || !strings.HasPrefix(out, "node,community\n") || strings.Count(out, "\n") != 35 {
		t.Errorf("communities --out -: exit %d, stdout not the CSV: %q %s", code, out, stderr)
	}
	for _, args := range [][]string{{"keygen", "--out", "-"}, {"sensitivity", "--graph", "karate", "--save", "-"},
		{"locate", "--graph", "karate", "--release", "-"}, {"demo", "--plot", "-"}} {
		if _, stderr, code := runCLI(args...); code != exitUsage || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`a file named "-" was written`)
	}
	_, a, ca := runCLI("release", "--frob", "-o", "json")
	_, b, cb := runCLI("release", "-o", "json", "--frob")
	if a != b || ca != cb || !strings.HasPrefix(a, "{") {
		t.Errorf("--frob -o json and -o json --frob differ:\n%s (%d)\n%s (%d)", a, ca, b, cb)
	}
	for args, want := range map[string]string{"relase": "did you mean release", "comunities --graph karate": "did you mean communities",
		"release --epsilom 1": "did you mean --epsilon", "projection shw": "did you mean show"} {
		if _, stderr, code := runCLI(strings.Fields(args)...); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q; want %q", args, code, stderr, want)
		}
	}
	t.Setenv("GRAPHCLOAK_NEO4J_PASWORD", "x")
	if _, stderr, _ := runCLI("version"); !strings.Contains(stderr, "GRAPHCLOAK_NEO4J_PASWORD") || !strings.Contains(stderr, "GRAPHCLOAK_NEO4J_PASSWORD") {
		t.Errorf("misspelt variable not warned about: %q", stderr)
	}
}

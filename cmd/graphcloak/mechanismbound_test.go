package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The classic mechanism's ε < 1 bound is a release's: a private answer,
// which has its own mechanism, is not refused by it, and a release still
// is (exit 3). Before, config refused every command at ε ≥ 1 with
// privacy.mechanism classic, private answers included.
func TestClassicBoundIsTheReleasesOnly(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger, "--answer-epsilon", "4") // an answer at ε = 2 fits
	readings := karateSourceReadings(t, filepath.Join(dir, "r.csv"), 0, 1)
	t.Setenv("GRAPHCLOAK_PRIVACY_MECHANISM", "classic")
	_, stderr, code := runCLI("locate", "--graph", "karate", "--private-answer", "--values", readings,
		"--ledger", ledger, "--epsilon", "2", "--tau", "1", "--dry-run")
	if code != 0 {
		t.Errorf("classic locate --private-answer --epsilon 2 --dry-run: exit %d: %s", code, stderr)
	}
	_, stderr, code = runCLI("release", "--graph", "karate", "--values", readings,
		"--ledger", ledger, "--epsilon", "2", "--dry-run")
	if code != 3 || !strings.Contains(stderr, "only proven for ε < 1") {
		t.Errorf("classic release --epsilon 2: exit %d, want 3 naming the bound: %s", code, stderr)
	}
}

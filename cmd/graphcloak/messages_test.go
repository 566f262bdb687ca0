package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A configuration value refused by validation is named as the user set
// it: the flag typed, the environment variable, or the file's dotted key.
func TestConfigErrorNamesWhatSetIt(t *testing.T) {
	isolateConfig(t)
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("privacy:\n  tau: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		env       string
		args      []string
		want, not string
	}{
		{"flag", "", []string{"--tau", "inf"}, "--tau: must be finite", "privacy.tau"},
		{"environment", "-1", nil, "GRAPHCLOAK_PRIVACY_TAU: must be finite", "privacy.tau"},
		{"file", "", []string{"--config", file}, "privacy.tau: must be finite", "--tau"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GRAPHCLOAK_PRIVACY_TAU", tc.env)
			if tc.env == "" {
				os.Unsetenv("GRAPHCLOAK_PRIVACY_TAU")
			}
			_, stderr, code := runCLI(append([]string{"sensitivity", "--graph", "karate"}, tc.args...)...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, tc.not) {
				t.Errorf("exit %d, %q; want exit %d saying %q (not %q)", code, stderr, exitBadInput, tc.want, tc.not)
			}
		})
	}
}

// epoch open of an epoch charged before, with --out another file than its
// order's, names the file it looked at (it is not "not at hand": it is
// elsewhere), exits 7 and charges nothing.
func TestEpochOpenChargedNamesThePathLookedAt(t *testing.T) {
	isolateConfig(t)
	r := newCollectRig(t)
	r.open(t, "e1", filepath.Join(r.dir, "epoch.order"))
	spent := ledgerSpent(t, r.ledger)
	elsewhere := filepath.Join(r.dir, "other.order")
	code, _, stderr := runCode("epoch", "open", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--delta", "1e-6",
		"--ledger", r.ledger, "--scope", "building-7", "--epoch", "e1", "--valid-for", "1h", "--signing-key", r.signing,
		"--out", elsewhere)
	if code != exitChargedEpoch || !strings.Contains(stderr, "not at "+elsewhere) {
		t.Errorf("exit %d, %q; want exit %d naming %s", code, stderr, exitChargedEpoch, elsewhere)
	}
	if got := ledgerSpent(t, r.ledger); got != spent {
		t.Errorf("the refusal charged: spent %v, then %v", spent, got)
	}
}

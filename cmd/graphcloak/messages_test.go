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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve checks its flags into the specs of a slot's steps before it
// connects: a bad flag is refused with its exit code and no database;
// flags that pass reach the connection (exit 4 from an unreachable
// server), the private answer's too although no slot has named its epoch.
func TestServeChecksBeforeConnecting(t *testing.T) {
	dir := t.TempDir()
	values := filepath.Join(dir, "readings.csv")
	if err := os.WriteFile(values, []byte("node,value\n1,0.5\n2,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"serve", "--schedule", "@every 1h", "--listen", "", "--uri", "bolt://127.0.0.1:1", "--connect-timeout", "1",
		"--node-labels", "Person", "--relationship-types", "KNOWS", "--node-key-property", "id",
		"--write-property", "exposurePrivate", "--ledger", "neo4j", "--scope", "s", "--epsilon", "1", "--delta", "1e-6"}
	cases := []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"no schedule", []string{"serve", "--values", values}, exitUsage, "--schedule is required"},
		{"epoch", []string{"--values", values, "--epoch", "e1"}, exitUsage, "--epoch is not used by serve"},
		{"values from stdin", []string{"--values", "-"}, exitUsage, "--values -"},
		{"negative max runs", []string{"--values", values, "--max-runs", "-1"}, exitBadInput, "--max-runs"},
		{"no readings", nil, exitUsage, "give exactly one of --values"},
		{"bad communities", []string{"--values", values, "--communities", "spectral"}, exitUsage, "--communities must be"},
		{"answer with two sources", []string{"--values", values, "--private-answer", "--sources", "2"}, exitUsage, "--sources must be 1"},
		{"release and locate", []string{"--values", values}, exitDBUnreachable, ""},
		{"private answer", []string{"--values", values, "--private-answer"}, exitDBUnreachable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string(nil), base...), c.args...)
			if c.args != nil && c.args[0] == "serve" {
				args = c.args
			}
			_, code, err := runPrivacyCLI(t, args...)
			// The message the user sees: library errors name parameters,
			// which the CLI renders as the flags typed (errorMessage).
			if code != c.want || (c.msg != "" && (err == nil || !strings.Contains(errorMessage(err), c.msg))) {
				t.Errorf("exit %d (%v), want %d with %q", code, err, c.want, c.msg)
			}
		})
	}
}

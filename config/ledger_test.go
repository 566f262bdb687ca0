package config

import (
	"path/filepath"
	"testing"
)

// TestLedgerName: a Neo4j ledger is named neo4j, a file ledger by its
// path; with none configured, the file is graphcloak/ledger.json under
// $XDG_STATE_HOME when it is absolute, else under ~/.local/state.
func TestLedgerName(t *testing.T) {
	for ledger, want := range map[string]string{"neo4j": "neo4j", "/tmp/l.json": "/tmp/l.json"} {
		cfg := &Config{}
		cfg.Privacy.Ledger = ledger
		if got, err := cfg.LedgerName(); err != nil || got != want {
			t.Errorf("ledger %q: %q, %v; want %q", ledger, got, err, want)
		}
	}
	state, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	for xdg, want := range map[string]string{
		state:      filepath.Join(state, "graphcloak", "ledger.json"),
		"relative": filepath.Join(home, ".local", "state", "graphcloak", "ledger.json"),
		"":         filepath.Join(home, ".local", "state", "graphcloak", "ledger.json"),
	} {
		t.Setenv("XDG_STATE_HOME", xdg)
		if got, err := (&Config{}).LedgerName(); err != nil || got != want {
			t.Errorf("XDG_STATE_HOME=%q: %q, %v; want %q", xdg, got, err, want)
		}
	}
}

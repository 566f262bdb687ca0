package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
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

// TestLedgerKey: no key configured is no key; a key file is read; one
// that cannot be read is bad input naming the ledger key.
func TestLedgerKey(t *testing.T) {
	c := &Config{}
	if k, err := c.LedgerKey(); k != nil || err != nil {
		t.Errorf("none configured: %v, %v", k, err)
	}
	path := filepath.Join(t.TempDir(), "ledger.key")
	k, err := privacy.GenerateKey()
	if err == nil {
		err = privacy.WriteKeyFile(path, k)
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Privacy.LedgerKeyFile = path
	if got, err := c.LedgerKey(); err != nil || got == nil || *got != k {
		t.Errorf("%s: %v, %v; want the key written", path, got, err)
	}
	c.Privacy.LedgerKeyFile = path + ".missing"
	if _, err := c.LedgerKey(); errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), string(privacy.ParamLedgerKey)) {
		t.Errorf("missing key file: %v (kind %v), want bad input naming %s", err, errkind.Of(err), privacy.ParamLedgerKey)
	}
}

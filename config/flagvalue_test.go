package config

import "testing"

// A flag bound to a key has the key's effective value, set by the
// environment as much as by the flag; an unbound flag and a nil Loaded
// have the flag's own.
func TestFlagValue(t *testing.T) {
	isolate(t)
	t.Setenv("GRAPHCLOAK_PRIVACY_LEDGER", "from-env.json")
	fs := flags(t)
	fs.String("out", "", "an unbound flag")
	if err := fs.Parse([]string{"--out", "o.csv"}); err != nil {
		t.Fatal(err)
	}
	l, err := Load(Options{Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.FlagValue(fs.Lookup("ledger")); got != "from-env.json" {
		t.Errorf("--ledger set by the environment: %q", got)
	}
	if got := (*Loaded)(nil).FlagValue(fs.Lookup("ledger")); got != "" {
		t.Errorf("no configuration: %q, want the flag's own (unset)", got)
	}
	if got := l.FlagValue(fs.Lookup("out")); got != "o.csv" {
		t.Errorf("--out: %q", got)
	}
	if err := fs.Set("ledger", "from-flag.json"); err != nil {
		t.Fatal(err)
	}
	if l, err = Load(Options{Flags: fs}); err != nil {
		t.Fatal(err)
	}
	if got := l.FlagValue(fs.Lookup("ledger")); got != "from-flag.json" {
		t.Errorf("--ledger given: %q", got)
	}
}

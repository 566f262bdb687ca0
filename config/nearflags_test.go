package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// NearFlags finds the flags within two edits of a misspelt name or
// starting with it, never a hidden one.
func TestNearFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	for _, name := range []string{"epsilon", "epsilon-total", "delta", "epoch", "graph"} {
		fs.String(name, "", "")
	}
	if err := fs.MarkHidden("epoch"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"epsilom": "--epsilon",
		"epsilon": "--epsilon --epsilon-total",
		"eps":     "--epsilon --epsilon-total",
		"delat":   "--delta",
		"epoc":    "",
		"nothing": "",
	} {
		if got := strings.Join(NearFlags(fs, name), " "); got != want {
			t.Errorf("NearFlags(%q) = %q, want %q", name, got, want)
		}
	}
}

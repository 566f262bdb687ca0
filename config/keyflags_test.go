package config

import (
	"testing"

	"github.com/spf13/pflag"
)

// Every key's flag is defined, bound to its key, but those excepted.
func TestAddKeyFlags(t *testing.T) {
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	AddKeyFlags(fs, "output", "log-format")
	n := 0
	for _, k := range Keys() {
		if k.Flag == "" {
			continue
		}
		f := fs.Lookup(k.Flag)
		switch {
		case k.Flag == "output" || k.Flag == "log-format":
			if f != nil {
				t.Errorf("--%s defined though excepted", k.Flag)
			}
		case f == nil:
			t.Errorf("--%s (%s) not defined", k.Flag, k.Name)
		case len(f.Annotations[annotation]) != 1 || f.Annotations[annotation][0] != k.Name:
			t.Errorf("--%s bound to %v, want %s", k.Flag, f.Annotations[annotation], k.Name)
		default:
			n++
		}
	}
	if n < 20 {
		t.Errorf("%d flags defined", n)
	}
}

package config

import (
	"testing"

	"github.com/spf13/pflag"
)

// listDefault writes a list default as it is typed: brackets dropped,
// numbers in %g, words kept; anything that is no list is unchanged.
func TestListDefault(t *testing.T) {
	for _, c := range []struct{ def, want string }{
		{"[0.500000,1.000000,2.000000]", "0.5,1,2"},
		{"[1e-06,0.100000]", "1e-06,0.1"},
		{"[leiden,louvain]", "leiden,louvain"},
		{"[]", "[]"},
		{"[unclosed", "[unclosed"},
		{"0.5", "0.5"},
		{"", ""},
	} {
		if got := listDefault(c.def); got != c.want {
			t.Errorf("listDefault(%q) = %q, want %q", c.def, got, c.want)
		}
	}
}

// TidyDefaults: a float list's default as typed, an empty list of a flag
// that is no list without a default, an empty string list kept as pflag
// reads it.
func TestTidyDefaults(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Float64Slice("taus", []float64{0.5, 1, 2}, "")
	fs.Float64Slice("none", nil, "")
	fs.StringSlice("labels", nil, "")
	fs.Float64("tau", 1, "")
	TidyDefaults(fs)
	for name, want := range map[string]string{"taus": "0.5,1,2", "none": "", "labels": "[]", "tau": "1"} {
		if got := fs.Lookup(name).DefValue; got != want {
			t.Errorf("--%s default %q, want %q", name, got, want)
		}
	}
}

package config

import (
	"strings"
	"testing"
)

// TestOutputArg: every spelling of -o is found before and after a bad
// flag, the last one wins, a trailing -o without a value and anything
// after "--" are not flags.
func TestOutputArg(t *testing.T) {
	for _, c := range []struct {
		args  string
		want  string
		found bool
	}{
		{"locate --graph karate", "", false},
		{"locate -o json", "json", true},
		{"locate --frob -o json", "json", true},
		{"locate --output json --frob", "json", true},
		{"locate --output=json", "json", true},
		{"locate -ojson", "json", true},
		{"locate -o=json", "json", true},
		{"locate -o json -o text", "text", true},
		{"locate -o", "", false},
		{"locate -- -o json", "", false},
		{"locate -o text -- -o json", "text", true},
		{"locate --other -o", "", false},
	} {
		got, found := OutputArg(strings.Fields(c.args))
		if got != c.want || found != c.found {
			t.Errorf("OutputArg(%q) = %q, %v; want %q, %v", c.args, got, found, c.want, c.found)
		}
	}
}

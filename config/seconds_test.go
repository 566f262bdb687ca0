package config

import (
	"strings"
	"testing"
)

// Durations are seconds or Go durations, never negative; a negative one is
// refused as such rather than as an unreadable duration.
func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]float64{"15": 15, "0": 0, "1.5": 1.5, "15s": 15, "2m": 120, "1h30m": 5400, " 3s ": 3} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{"-1": "≥ 0", "-1s": "≥ 0", "NaN": "≥ 0", "soon": "give seconds", "15x": "give seconds"} {
		if _, err := ParseSeconds(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSeconds(%q): error %v, want one saying %q", in, err, msg)
		}
	}
}

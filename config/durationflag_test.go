package config

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// A duration flag takes plain seconds and Go durations alike, prints its
// default as a Go duration and refuses a negative or malformed value.
func TestDurationVar(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var d time.Duration
	DurationVar(fs, &d, "grace", 20*time.Second, "")
	if d != 20*time.Second || fs.Lookup("grace").DefValue != "20s" || fs.Lookup("grace").Value.Type() != "duration" {
		t.Fatalf("default %v, shown %q", d, fs.Lookup("grace").DefValue)
	}
	for in, want := range map[string]time.Duration{"30": 30 * time.Second, "0.5": 500 * time.Millisecond, "2m": 2 * time.Minute, "1h30m": 90 * time.Minute} {
		if err := fs.Set("grace", in); err != nil || d != want {
			t.Errorf("--grace %s: %v, %v; want %v", in, d, err, want)
		}
	}
	for _, bad := range []string{"-1", "-5s", "soon", "NaN"} {
		if err := fs.Set("grace", bad); err == nil {
			t.Errorf("--grace %s accepted: %v", bad, d)
		}
	}
}

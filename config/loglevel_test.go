package config

import (
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// The level a command logs at, for every source of the configured level:
// --quiet is error and refuses another level given as a flag (usage); a
// daemon logs info only when no level was configured.
func TestEffectiveLogLevel(t *testing.T) {
	for _, c := range []struct {
		level   string
		source  Source
		quiet   bool
		daemon  bool
		want    string
		refused bool
	}{
		{"warn", FromDefault, false, false, "warn", false},
		{"warn", FromDefault, false, true, "info", false},
		{"debug", FromFlag, false, true, "debug", false},
		{"error", FromEnv, false, true, "error", false},
		{"warn", FromDefault, true, false, "error", false},
		{"warn", FromDefault, true, true, "error", false},
		{"error", FromFlag, true, false, "error", false},
		{"debug", FromEnv, true, false, "error", false},
		{"debug", FromFile, true, true, "error", false},
		{"debug", FromFlag, true, false, "", true},
		{"info", FromFlag, true, true, "", true},
	} {
		l := &Loaded{Sources: map[string]Source{"logLevel": c.source}}
		l.LogLevel = c.level
		got, err := l.EffectiveLogLevel(c.quiet, c.daemon)
		if got != c.want || (err != nil) != c.refused || (err != nil && errkind.Of(err) != errkind.Usage) {
			t.Errorf("%+v: %q, %v", c, got, err)
		}
	}
}

// Table or json, text or json; anything else is a usage error.
func TestCheckFormats(t *testing.T) {
	for _, c := range []struct {
		output, logFormat string
		ok                bool
	}{
		{"table", "text", true}, {"json", "json", true}, {"yaml", "text", false}, {"table", "logfmt", false}, {"", "text", false},
	} {
		l := &Loaded{}
		l.Output, l.LogFormat = c.output, c.logFormat
		err := l.CheckFormats()
		if (err == nil) != c.ok || (err != nil && errkind.Of(err) != errkind.Usage) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

package config

import "github.com/graphcloak/graphcloak/errkind"

// CheckFormats refuses (usage) an output format other than table or json
// and a log format other than text or json.
func (l *Loaded) CheckFormats() error {
	if l.Output != "table" && l.Output != "json" {
		return errkind.Usagef("--output must be table or json, got %q", l.Output)
	}
	if l.LogFormat != "text" && l.LogFormat != "json" {
		return errkind.Usagef("--log-format must be text or json, got %q", l.LogFormat)
	}
	return nil
}

// EffectiveLogLevel is the level a command logs at: the configured one;
// with quiet (--quiet) error, which a --log-level flag other than error
// contradicts (usage); for a daemon (serve: its log lines are its output,
// for a collector) info unless a level was configured or quiet asked.
func (l *Loaded) EffectiveLogLevel(quiet, daemon bool) (string, error) {
	level := l.LogLevel
	if quiet {
		if l.Sources["logLevel"] == FromFlag && level != "error" {
			return "", errkind.Usagef("--quiet contradicts --log-level %s", level)
		}
		return "error", nil
	}
	if daemon && l.Sources["logLevel"] == FromDefault {
		return "info", nil
	}
	return level, nil
}

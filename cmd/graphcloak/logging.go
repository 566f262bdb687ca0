package main

import (
	"io"
	"log/slog"

	"github.com/graphcloak/graphcloak/internal/uniquekeys"
)

// newLogger returns the structured logger of a run: log/slog on stderr, as
// text or JSON (--log-format), from level (--log-level; --quiet is error).
// Nothing secret is ever passed to it: the configuration is logged only
// through config.Config.Redacted, and true readings, passwords and noise
// keys are never logged.
func newLogger(w io.Writer, format, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(uniquekeys.New(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(uniquekeys.New(slog.NewTextHandler(w, opts)))
}

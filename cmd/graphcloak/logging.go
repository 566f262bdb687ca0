package main

import (
	"io"
	"log/slog"
)

// newLogger returns the structured logger of a run: log/slog on stderr, as
// text or JSON (--log-format). Nothing secret is ever passed to it: the
// configuration is logged only through config.Config.Redacted, and true
// readings, passwords and noise keys are never logged.
func newLogger(w io.Writer, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

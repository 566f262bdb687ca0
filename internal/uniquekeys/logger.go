package uniquekeys

import (
	"io"
	"log/slog"
)

// NewLogger returns the structured logger of a graphcloak run: log/slog
// on w, as text or JSON (format "json"), from level ("debug", "info",
// "warn" or "error"; anything else is info), every key of a record once
// (New). Nothing secret is ever passed to it: the configuration is logged
// only redacted, and true readings, passwords and noise keys are never
// logged.
func NewLogger(w io.Writer, format, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(New(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(New(slog.NewTextHandler(w, opts)))
}

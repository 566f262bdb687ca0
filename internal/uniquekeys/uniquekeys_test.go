package uniquekeys

import (
	"bytes"
	"log/slog"
	"testing"
)

// A key bound with With gives way to the record's own, a key repeated in
// a record keeps its last value, and a group's keys stay in the group.
func TestNew(t *testing.T) {
	for _, c := range []struct {
		name string
		log  func(*slog.Logger)
		want string
	}{
		{"record beats bound", func(l *slog.Logger) { l.With("runId", "a", "epoch", "e").Info("m", "runId", "b") },
			`{"level":"INFO","msg":"m","runId":"b","epoch":"e"}`},
		{"last in a record", func(l *slog.Logger) { l.Info("m", "k", 1, "k", 2) }, `{"level":"INFO","msg":"m","k":2}`},
		{"group", func(l *slog.Logger) { l.With("k", 1).WithGroup("g").Info("m", "k", 2) }, `{"level":"INFO","msg":"m","k":1,"g":{"k":2}}`},
	} {
		var b bytes.Buffer
		opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}
		c.log(slog.New(New(slog.NewJSONHandler(&b, opts))))
		if got := bytes.TrimSpace(b.Bytes()); string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

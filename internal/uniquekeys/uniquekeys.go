// Package uniquekeys is a slog.Handler that writes every key of a record
// once, so that JSON consumers never see a key twice.
package uniquekeys

import (
	"context"
	"log/slog"
)

// New is next writing every key once (handler).
func New(next slog.Handler) slog.Handler { return &handler{next: next} }

// handler writes every key once: attributes
// bound with With (a serve step's runId and epoch) are dropped where the
// record names the same key — the record's value is the more specific
// one (the run a step resumed, say) — and a key repeated in one record
// keeps its last value. JSON consumers then never see a key twice.
type handler struct {
	next  slog.Handler
	bound []slog.Attr // not yet passed to next
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &handler{next: h.next, bound: lastOfEachKey(append(append([]slog.Attr(nil), h.bound...), attrs...))}
}

// WithGroup binds the attributes so far outside the group (keys inside a
// group cannot clash with them).
func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithAttrs(h.bound).WithGroup(name)}
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	attrs := make([]slog.Attr, 0, len(h.bound)+r.NumAttrs())
	attrs = append(attrs, h.bound...)
	r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	out.AddAttrs(lastOfEachKey(attrs)...)
	return h.next.Handle(ctx, out)
}

// lastOfEachKey keeps the last attribute of each key, in the order of
// their first appearance.
func lastOfEachKey(attrs []slog.Attr) []slog.Attr {
	at := map[string]int{}
	out := attrs[:0:0]
	for _, a := range attrs {
		if i, ok := at[a.Key]; ok {
			out[i] = a
			continue
		}
		at[a.Key] = len(out)
		out = append(out, a)
	}
	return out
}

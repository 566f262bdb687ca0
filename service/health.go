package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// Thresholds of /healthz (docs/scheduling.md).
const (
	// DefaultFailedSlots is how many slots in a row must fail for
	// /healthz to answer 503.
	DefaultFailedSlots = 3
	// DefaultProbeTimeout bounds one check of the database.
	DefaultProbeTimeout = 3 * time.Second
	// DefaultProbeInterval is how long a check of the database is reused:
	// polls more frequent than this never load the database.
	DefaultProbeInterval = 5 * time.Second
)

// Health decides whether the service can do its work, for /healthz:
// unhealthy (503, the reasons in the body) while the database does not
// answer Probe, or once the last FailedSlots slots have all failed (a
// budget refusal, a release forecast at chance and an interrupted slot are
// not failures). The zero value checks slots with the defaults and no
// database.
type Health struct {
	// FailedSlots is the number of consecutive failed slots that makes
	// the service unhealthy: 0 means DefaultFailedSlots, < 0 never.
	FailedSlots int
	// Probe checks the database (nil: not checked). It is called at most
	// once per ProbeInterval (0: DefaultProbeInterval; < 0: at every
	// poll), bounded by ProbeTimeout (default DefaultProbeTimeout).
	Probe                       func(ctx context.Context) error
	ProbeTimeout, ProbeInterval time.Duration

	mu          sync.Mutex
	failed      int    // consecutive failed slots
	lastFailure string // the last failed slot's error

	probeMu  sync.Mutex // one probe at a time; others reuse its result
	probedAt time.Time
	probeErr error
}

// SlotEnded records how a slot ended (its error; nil: succeeded).
func (h *Health) SlotEnded(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch Status(err) {
	case connector.StatusFailed:
		h.failed++
		h.lastFailure = err.Error()
		if errkind.Of(err) == errkind.Unreachable {
			h.expireProbe() // the slot found the database gone: the next poll looks again
		}
	case connector.StatusInterrupted:
		// Neither success nor failure: the process is stopping.
	default:
		h.failed, h.lastFailure = 0, ""
	}
}

// expireProbe makes the next check probe the database again.
func (h *Health) expireProbe() {
	h.probeMu.Lock()
	h.probedAt = time.Time{}
	h.probeMu.Unlock()
}

// HealthReport is the verdict of one check.
type HealthReport struct {
	Healthy bool
	// Reasons says why not: "database unreachable: …", "the last N slots
	// failed: …".
	Reasons []string
	// FailedSlots is the number of slots failed in a row.
	FailedSlots int
}

// Check checks the database (or reuses a recent check) and the slots.
func (h *Health) Check(ctx context.Context) HealthReport {
	var r HealthReport
	if err := h.database(ctx); err != nil {
		r.Reasons = append(r.Reasons, "database unreachable: "+err.Error())
	}
	limit := h.FailedSlots
	if limit == 0 {
		limit = DefaultFailedSlots
	}
	h.mu.Lock()
	r.FailedSlots = h.failed
	if limit > 0 && h.failed >= limit {
		r.Reasons = append(r.Reasons, fmt.Sprintf("the last %d slots failed (threshold %d); the last: %s", h.failed, limit, h.lastFailure))
	}
	h.mu.Unlock()
	r.Healthy = len(r.Reasons) == 0
	return r
}

// database runs Probe, or returns the result of one at most
// ProbeInterval old.
func (h *Health) database(ctx context.Context) error {
	if h.Probe == nil {
		return nil
	}
	h.probeMu.Lock()
	defer h.probeMu.Unlock()
	every := h.ProbeInterval
	switch {
	case every == 0:
		every = DefaultProbeInterval
	case every < 0:
		every = 0 // every poll probes
	}
	if !h.probedAt.IsZero() && time.Since(h.probedAt) < every {
		return h.probeErr
	}
	timeout := h.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := h.Probe(pctx)
	if err == nil && pctx.Err() != nil {
		err = fmt.Errorf("no answer within %v", timeout)
	}
	if ctx.Err() != nil {
		return err // the poller went away: not a verdict on the database
	}
	h.probedAt, h.probeErr = time.Now(), err
	return err
}

// healthHandler serves /healthz: next's answer (the metrics' /healthz,
// which turns 503 once shutdown began) while h finds the service healthy,
// else 503 with status "unhealthy" and the reasons added to its body.
func healthHandler(h *Health, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		body := map[string]any{}
		if rec.code != http.StatusOK || json.Unmarshal(rec.body.Bytes(), &body) != nil {
			copyResponse(w, rec) // stopping (or not JSON): as it is
			return
		}
		rep := h.Check(r.Context())
		body["consecutiveFailedSlots"] = rep.FailedSlots
		code := http.StatusOK
		if !rep.Healthy {
			body["status"], body["reasons"], code = "unhealthy", rep.Reasons, http.StatusServiceUnavailable
		}
		data, err := json.Marshal(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_, _ = w.Write(append(data, '\n'))
	})
}

// recorder is an http.ResponseWriter that keeps the response.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }

func copyResponse(w http.ResponseWriter, rec *recorder) {
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.code)
	_, _ = w.Write(rec.body.Bytes())
}

package service

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/privacy"
)

func healthBody(t *testing.T, h http.Handler) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("/healthz body %q: %v", rec.Body.String(), err)
	}
	return rec.Code, body
}

// Issue 49, deliver 4: /healthz reflects the service's ability to work:
// 503 with the reason while the database does not answer, and once the
// last FailedSlots slots failed; a refusal (the budget) is no failure; a
// success clears the count; shutdown still answers 503 "stopping".
func TestHealthReflectsWork(t *testing.T) {
	var down atomic.Bool
	probes := 0
	h := &Health{FailedSlots: 2, ProbeInterval: -1, Probe: func(context.Context) error {
		probes++
		if down.Load() {
			return errors.New("connection refused")
		}
		return nil
	}}
	m := metrics.New()
	srv := healthHandler(h, m.Handler())
	if code, body := healthBody(t, srv); code != http.StatusOK || body["status"] != "ok" {
		t.Fatalf("healthy: %d %v", code, body)
	}
	down.Store(true)
	code, body := healthBody(t, srv)
	if code != http.StatusServiceUnavailable || body["status"] != "unhealthy" || !strings.Contains(body["reasons"].([]any)[0].(string), "database unreachable: connection refused") {
		t.Errorf("database down: %d %v, want 503 naming the database", code, body)
	}
	down.Store(false)
	h.SlotEnded(errors.New("release failed: boom"))
	if code, _ := healthBody(t, srv); code != http.StatusOK {
		t.Errorf("one failed slot of 2: %d, want 200", code)
	}
	h.SlotEnded(&privacy.BudgetError{}) // refused: the service worked
	h.SlotEnded(errors.New("release failed: boom"))
	if code, _ := healthBody(t, srv); code != http.StatusOK {
		t.Errorf("failures separated by a refusal: %d, want 200", code)
	}
	h.SlotEnded(errors.New("release failed: bang"))
	code, body = healthBody(t, srv)
	if code != http.StatusServiceUnavailable || !strings.Contains(body["reasons"].([]any)[0].(string), "the last 2 slots failed") ||
		!strings.Contains(body["reasons"].([]any)[0].(string), "bang") || body["consecutiveFailedSlots"] != float64(2) {
		t.Errorf("two failed slots: %d %v, want 503 naming them and the last error", code, body)
	}
	h.SlotEnded(nil)
	if code, _ := healthBody(t, srv); code != http.StatusOK {
		t.Errorf("after a succeeded slot: %d, want 200", code)
	}
	m.Stopping()
	if code, body := healthBody(t, srv); code != http.StatusServiceUnavailable || body["status"] != "stopping" {
		t.Errorf("stopping: %d %v", code, body)
	}
	if probes < 3 {
		t.Errorf("%d probes with ProbeInterval < 0, want one per poll", probes)
	}
}

// A probe result is reused for ProbeInterval: frequent polls do not load
// the database.
func TestHealthProbeReused(t *testing.T) {
	probes := 0
	h := &Health{Probe: func(context.Context) error { probes++; return nil }}
	for range 10 {
		if r := h.Check(context.Background()); !r.Healthy {
			t.Fatal(r.Reasons)
		}
	}
	if probes != 1 {
		t.Errorf("%d probes in 10 polls within %v, want 1", probes, DefaultProbeInterval)
	}
}

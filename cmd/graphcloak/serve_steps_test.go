package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/stores"
)

// The page's steps are the current slot's: a step whose callback is made
// but never reports (Δ2 reused from its cache) has no row — before, it
// stayed "Δ2 0 ? 0s ?" — and the next slot's callback drops the last
// slot's row of that step until it reports itself.
func TestServeStepsNotStale(t *testing.T) {
	t.Setenv(progressPeriodEnv, "1ns")
	cfg := &config.Loaded{}
	cfg.Privacy.Scope = "whisper"
	var stderr strings.Builder
	g := &globalOptions{cfg: cfg, stderr: &stderr}
	now := time.Unix(1e9, 0)
	running := &progressbar.Running{Now: func() time.Time { return now }}
	progress := serveProgress(g, running, metrics.New())
	st, err := stores.Open(t.Context(), cfg, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := newOperatorPage(&serveOptions{g: g, schedule: "@hourly"}, running, st)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	steps := func() string {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		body := rec.Body.String()
		i := strings.Index(body, `<table id="steps">`)
		if i < 0 {
			return ""
		}
		return body[i : i+strings.Index(body[i:], "</table>")]
	}

	progress("Δ2") // the first slot: Δ2 from its cache, no report
	audit := progress("answer audit")
	audit(5, 10)
	if s := steps(); strings.Contains(s, "Δ2") || !strings.Contains(s, "<td>answer audit</td><td>5</td>") {
		t.Errorf("first slot's steps: %s", s)
	}
	audit(10, 10)
	progress("answer audit") // the next slot: the audit reused, no report
	if s := steps(); strings.Contains(s, "answer audit") {
		t.Errorf("the last slot's audit still listed in the next slot: %s", s)
	}
}

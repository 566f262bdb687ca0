package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/stores"
)

// serve's page reads the configured scope's budget and runs at each
// request through the stores serve opened: with those opened without
// Neo4j it says why in place of both, and still shows the scope and the
// projection. Neither the page's requests nor /healthz's checks open a
// driver of their own (one driver per process, connector.DriversOpened:
// before, every request connected and the probe held a second driver).
func TestOperatorPageWithoutNeo4j(t *testing.T) {
	cfg := &config.Loaded{}
	cfg.Neo4j.URI = "bolt://127.0.0.1:1" // nothing listens on port 1
	cfg.Neo4j.ConnectTimeout = 2
	cfg.Privacy.Scope, cfg.Privacy.Ledger = "whisper", "neo4j"
	cfg.Projection.NodeLabels, cfg.Projection.NodeKeyProperty = []string{"Room"}, "roomId"
	st, err := stores.Open(t.Context(), cfg, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := &serveOptions{g: &globalOptions{cfg: cfg}, schedule: "@hourly"}
	page, err := newOperatorPage(opts, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	health := serveHealth(opts, st)
	health.ProbeInterval = -1 // probe at every poll
	before := connector.DriversOpened()
	for range 3 {
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("status %d, %q", rec.Code, rec.Header().Get("Content-Type"))
		}
		body := rec.Body.String()
		for _, want := range []string{"whisper", "@hourly", "(:Room)-[:*]-, key roomId", "budget unknown", "runs unknown", "no slot located since this server started"} {
			if !strings.Contains(body, want) {
				t.Errorf("page without Neo4j lacks %q:\n%s", want, body)
			}
		}
		if r := health.Check(t.Context()); r.Healthy || len(r.Reasons) != 1 || !strings.HasPrefix(r.Reasons[0], "database unreachable: ") {
			t.Errorf("/healthz without Neo4j: %+v", r)
		}
	}
	if n := connector.DriversOpened() - before; n != 0 {
		t.Errorf("3 page requests and health checks opened %d drivers, want 0 (they read through serve's stores)", n)
	}
}

// A running audit on serve's surfaces (issue 61): each report of a slot's
// long step reaches the page's steps table (done, total, ETA at the rate
// so far; "done" once finished) and /metrics' graphcloak_step_* gauges,
// and is logged on stderr (not a terminal) as any command's progress. The
// clock is a fake one: 640 of 20 000 sources in 32 s leave 968 s.
func TestServeShowsRunningSteps(t *testing.T) {
	t.Setenv(progressPeriodEnv, "1ns")
	cfg := &config.Loaded{}
	cfg.Privacy.Scope = "whisper"
	var stderr strings.Builder
	g := &globalOptions{cfg: cfg, stderr: &stderr}
	now := time.Unix(1e9, 0)
	running := &progressbar.Running{Now: func() time.Time { return now }}
	m := metrics.New()
	progress := serveProgress(g, running, m)
	audit, d2 := progress("answer audit"), progress("Δ2")
	audit(0, 20000)
	d2(10, 10)
	now = now.Add(32 * time.Second)
	audit(640, 20000)

	st, err := stores.Open(t.Context(), cfg, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := newOperatorPage(&serveOptions{g: g, schedule: "@hourly"}, running, st)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	body := rec.Body.String()
	for _, want := range []string{"<td>answer audit</td><td>640</td><td>20000</td><td>32s</td><td>16m8s</td>", "<td>Δ2</td><td>10</td><td>10</td><td>0s</td><td>done</td>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page's steps lack %q:\n%s", want, body)
		}
	}
	rec = httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{`graphcloak_step_done{step="answer audit"} 640`, `graphcloak_step_total{step="answer audit"} 20000`,
		`graphcloak_step_eta_seconds{step="answer audit"} 968`, `graphcloak_step_done{step="Δ2"} 10`, `graphcloak_step_eta_seconds{step="Δ2"} 0`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if !strings.Contains(stderr.String(), "answer audit: 640/20000 (3%)") {
		t.Errorf("stderr lacks the audit's progress line:\n%s", stderr.String())
	}
}

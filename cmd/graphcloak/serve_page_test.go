package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/service"
)

// serve's page reads the configured scope's budget and runs at each
// request: with Neo4j unreachable it says why in place of both, and
// still shows the scope and the projection.
func TestOperatorPageWithoutNeo4j(t *testing.T) {
	cfg := &config.Loaded{}
	cfg.Neo4j.URI = "bolt://127.0.0.1:1" // nothing listens on port 1
	cfg.Neo4j.ConnectTimeout = 2
	cfg.Privacy.Scope, cfg.Privacy.Ledger = "whisper", "neo4j"
	cfg.Projection.NodeLabels, cfg.Projection.NodeKeyProperty = []string{"Room"}, "roomId"
	page, err := newOperatorPage(&serveOptions{g: &globalOptions{cfg: cfg}, schedule: "@hourly"})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
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
}

// The page's run table shows the runs listing's rows, each
// localisation's recorded verdict with it.
func TestOperatorPageRunsVerdict(t *testing.T) {
	yes, no := true, false
	runs := []any{runRow{RunID: "run-noise", Command: "locate", NoiseDominated: &yes},
		runRow{RunID: "run-answer", Command: "locate", NoiseDominated: &no}, runRow{RunID: "run-release", Command: "release"}}
	page, err := service.NewPage(service.PageOptions{Scope: "s",
		Status: func(context.Context, time.Time) service.PageStatus { return service.PageStatus{Runs: runs} }})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	row := func(id string) string {
		i := strings.Index(body, id)
		if i < 0 {
			t.Fatalf("no row %s", id)
		}
		return body[strings.LastIndex(body[:i], "<tr>"):i]
	}
	if !strings.Contains(row("run-noise"), `<span class="verdict">noise</span>`) || !strings.Contains(row("run-answer"), "<td>answer</td>") ||
		strings.Contains(row("run-release"), "noise") || strings.Contains(row("run-release"), "answer") {
		t.Fatalf("verdicts not in the run table:\n%s", body)
	}
}

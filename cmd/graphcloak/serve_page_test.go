package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
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

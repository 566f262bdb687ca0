package metrics

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// What a run reports is what a scrape shows, and /healthz turns 503 when
// shutdown begins.
func TestScrape(t *testing.T) {
	m := New()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	m.Run("release", "succeeded", 1500*time.Millisecond, 120)
	m.Run("release", "failed", time.Second, 0)
	m.Run("locate", "succeeded", 2*time.Second, 120)
	m.Budget("building-7", 0.25, 0.75)
	m.BudgetRefused("building-7")
	m.SlotSkipped()
	m.SlotSkipped()
	code, body := get(t, srv, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`graphcloak_runs_total{command="release",status="succeeded"} 1`,
		`graphcloak_runs_total{command="release",status="failed"} 1`,
		`graphcloak_nodes_processed_total{command="locate"} 120`,
		`graphcloak_run_duration_seconds_count{command="release"} 2`,
		`graphcloak_run_duration_seconds_sum{command="release"} 2.5`,
		`graphcloak_privacy_rho_spent{scope="building-7"} 0.25`,
		`graphcloak_privacy_rho_remaining{scope="building-7"} 0.75`,
		`graphcloak_budget_refusals_total{scope="building-7"} 1`,
		`graphcloak_slots_skipped_total 2`,
		`go_goroutines `,
		`graphcloak_last_success_timestamp_seconds{command="locate"} `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(body, `graphcloak_last_success_timestamp_seconds{command="release"} 0`) {
		t.Errorf("a failed run reset the last success time")
	}
	code, body = get(t, srv, "/healthz")
	var h struct {
		Status   string
		LastRuns map[string]struct{ Status string }
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil || code != http.StatusOK || h.Status != "ok" || h.LastRuns["release"].Status != "failed" {
		t.Errorf("/healthz while serving: %d %s (%v)", code, body, err)
	}
	m.Stopping()
	if code, _ = get(t, srv, "/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("/healthz while stopping: %d, want 503", code)
	}
}

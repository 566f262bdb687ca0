package local

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMissingNote: the collector's page says how many sensors are missing,
// their share, and the plan that forecasts the release at that share (the
// order's τ, α, ε, δ); nothing when every sensor has reported, and that
// nothing can be located when none has.
func TestMissingNote(t *testing.T) {
	nodes, keys := testKeys(10)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	defer c.Close()
	mux := http.NewServeMux()
	(&Handler{Collector: c, Order: []byte(`{}`), MaxBody: 1 << 16}).Routes(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	page := func() string {
		resp, err := http.Get(srv.URL + "/epoch/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if p := page(); !strings.Contains(p, "no sensor has reported") {
		t.Errorf("page before any report does not say nothing can be located:\n%s", p)
	}
	var reps []Report
	for i, n := range nodes[:9] {
		reps = append(reps, report(o, keys, n, int64(i)))
	}
	if s, br := post(t, srv.URL, jsonl(t, reps...)); s != http.StatusOK || br.Accepted != 9 {
		t.Fatalf("post: %d %+v", s, br)
	}
	p := page()
	for _, want := range []string{"1 of 10 sensors missing (10%)", "recovers from the 9 that reported",
		"missing at random", "--local --tau 1 --alpha 1 --epsilon 1 --delta 1e-05 --missing 0.1"} {
		if !strings.Contains(p, want) {
			t.Errorf("page lacks %q:\n%s", want, p)
		}
	}
	if note := MissingNote(o, Progress{Expected: 10, Reported: 10}); note != "" {
		t.Errorf("every sensor reported: note %q", note)
	}
}

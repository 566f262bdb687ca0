package local

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func post(t *testing.T, url string, body []byte) (int, BatchResult) {
	t.Helper()
	resp, err := http.Post(url+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var br BatchResult
	if err := json.NewDecoder(resp.Body).Decode(&br); err != nil {
		t.Fatalf("status %d: body is not a BatchResult: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, br
}

func jsonl(t *testing.T, reps ...Report) []byte {
	var b bytes.Buffer
	for _, r := range reps {
		b.Write(line(t, r))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestHandlerStatuses: each kind of batch gets its documented status and
// per-report results; an oversized body stores nothing.
func TestHandlerStatuses(t *testing.T) {
	nodes, keys := testKeys(6)
	o := testOrder(nodes)
	clk := &clock{t0}
	c := openTest(t, o, keys, t.TempDir(), clk)
	defer c.Close()
	var mu sync.Mutex
	observed := 0
	h := &Handler{Collector: c, Order: []byte(`{"order":{},"signature":"x"}`), MaxBody: 2048,
		Observe: func(r []Result) { mu.Lock(); observed += len(r); mu.Unlock() }}
	mux := http.NewServeMux()
	h.Routes(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/epoch/order")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, h.Order) {
		t.Errorf("GET /epoch/order: %q", got)
	}
	if s, br := post(t, srv.URL, jsonl(t, report(o, keys, "n0", 1), report(o, keys, "n1", 2))); s != 200 || br.Accepted != 2 {
		t.Errorf("good batch: %d %+v", s, br)
	}
	if s, br := post(t, srv.URL, jsonl(t, report(o, keys, "n0", 1))); s != 200 || br.Results[0].Reason != Duplicate {
		t.Errorf("a retried batch: %d %+v", s, br)
	}
	// Too large: 413, and the good report in it is not stored.
	big := append(jsonl(t, report(o, keys, "n2", 3)), bytes.Repeat([]byte(" "), 4096)...)
	if s, _ := post(t, srv.URL, big); s != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d", s)
	}
	if p := c.Progress(); p.Reported != 2 {
		t.Errorf("after the 413, %d reported, want 2", p.Reported)
	}
	bad := report(o, keys, "n3", 4)
	bad.MAC = strings.Repeat("1", 64)
	cases := []struct {
		name string
		body []byte
		want int
	}{
		{"empty body", nil, 400},
		{"blank lines only", []byte("\n\n  \n"), 400},
		{"malformed and a bad MAC", append([]byte("{not json\n"), jsonl(t, bad)...), 400},
		{"bad MAC", jsonl(t, bad), 422},
		{"not a report", []byte(`{"kind":"graphcloak.epoch-order"}`), 422},
		{"second value", jsonl(t, report(o, keys, "n0", 99)), 409},
	}
	for _, tc := range cases {
		if s, _ := post(t, srv.URL, tc.body); s != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, s, tc.want)
		}
	}
	// A mixed batch: the good report is stored whatever the status.
	if s, br := post(t, srv.URL, jsonl(t, bad, report(o, keys, "n4", 5))); s != 422 || br.Accepted != 1 || br.Results[1].Reason != Accepted {
		t.Errorf("mixed batch: %d %+v", s, br)
	}
	resp, _ = http.Get(srv.URL + "/epoch/")
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "3 of 6") {
		t.Errorf("page does not show 3 of 6 reported:\n%s", page)
	}
	clk.t = o.NotAfter
	if s, _ := post(t, srv.URL, jsonl(t, report(o, keys, "n5", 6))); s != http.StatusGone {
		t.Errorf("late: %d", s)
	}
	clk.t = o.NotBefore.Add(-time.Minute)
	if s, _ := post(t, srv.URL, jsonl(t, report(o, keys, "n5", 6))); s != http.StatusTooEarly {
		t.Errorf("early: %d", s)
	}
	resp, _ = http.Get(srv.URL + "/epoch/reports")
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /epoch/reports: %d", resp.StatusCode)
	}
	if observed == 0 {
		t.Error("Observe was never called")
	}
}

// TestHandlerConcurrentClients: many clients posting at once, each node's
// report sent by two clients; every node is stored once.
func TestHandlerConcurrentClients(t *testing.T) {
	nodes, keys := testKeys(400)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	defer c.Close()
	mux := http.NewServeMux()
	(&Handler{Collector: c}).Routes(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := map[string]int{}
	for w := 0; w < 40; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var reps []Report
			for i := w % 20; i < len(nodes); i += 20 {
				reps = append(reps, report(o, keys, nodes[i], int64(i)))
			}
			_, br := post(t, srv.URL, jsonl(t, reps...))
			mu.Lock()
			defer mu.Unlock()
			for _, r := range br.Results {
				if r.Reason == Accepted {
					accepted[r.Node]++
				}
			}
		}(w)
	}
	wg.Wait()
	for _, n := range nodes {
		if accepted[n] != 1 {
			t.Fatalf("%s accepted %d times", n, accepted[n])
		}
	}
}

// TestCurrent: before an epoch is set every route answers 503; then the
// current handler serves them, and Set replaces it.
func TestCurrent(t *testing.T) {
	var cur Current
	mux := http.NewServeMux()
	cur.Routes(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if resp, _ := http.Get(srv.URL + "/epoch/order"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("no epoch: %d", resp.StatusCode)
	}
	nodes, keys := testKeys(2)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	defer c.Close()
	if prev := cur.Set(&Handler{Collector: c, Order: []byte("order-1")}); prev != nil {
		t.Error("Set returned a previous handler")
	}
	resp, _ := http.Get(srv.URL + "/epoch/order")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "order-1" {
		t.Errorf("current order %q", body)
	}
	if s, br := post(t, srv.URL, jsonl(t, report(o, keys, "n0", 1))); s != 200 || br.Accepted != 1 {
		t.Errorf("POST through Current: %d %+v", s, br)
	}
	cur.Set(&Handler{Collector: c, Order: []byte("order-2")})
	resp, _ = http.Get(srv.URL + "/epoch/order")
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "order-2" {
		t.Errorf("after Set: %q", body)
	}
}

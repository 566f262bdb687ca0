package local

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func limitsServer(t *testing.T, h func(*Handler)) (*httptest.Server, Order, map[string][]byte) {
	t.Helper()
	nodes, keys := testKeys(4)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	t.Cleanup(c.Close)
	hd := &Handler{Collector: c, Order: []byte(`{}`)}
	if h != nil {
		h(hd)
	}
	mux := http.NewServeMux()
	hd.Routes(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, o, keys
}

// The collector is no amplifier: 1 MiB of "{}" lines (each a refused
// not-a-report) is answered with at most as many bytes as were sent, every
// refusal still counted (before: a 50 MB answer; 4 MiB gave 202 MB).
// A batch of real reports still gets every result.
func TestAnswerNoLargerThanRequest(t *testing.T) {
	srv, o, keys := limitsServer(t, nil)
	for _, size := range []int{1 << 20} {
		body := bytes.Repeat([]byte("{}\n"), size/3)
		resp, err := http.Post(srv.URL+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(answer) > len(body) {
			t.Errorf("%d-byte request: %d-byte answer", len(body), len(answer))
		}
		t.Logf("%d-byte request of %d lines: %d-byte answer", len(body), len(body)/3, len(answer))
		var br BatchResult
		if err := json.Unmarshal(answer, &br); err != nil {
			t.Fatalf("answer is not a BatchResult: %v", err)
		}
		if n := len(body) / 3; br.Refused != n || br.Refusals[NotAReport] != n || len(br.Results)+br.Omitted != n || resp.StatusCode != 422 {
			t.Errorf("%d lines: status %d, refused %d, refusals %v, %d results + %d omitted", n, resp.StatusCode, br.Refused, br.Refusals, len(br.Results), br.Omitted)
		}
	}
	good := jsonl(t, report(o, keys, "n0", 1), report(o, keys, "n1", 2), report(o, keys, "n2", 3))
	if s, br := post(t, srv.URL, good); s != 200 || len(br.Results) != 3 || br.Omitted != 0 {
		t.Errorf("three reports: %d %+v", s, br)
	}
	// Node names the JSON encoder escapes six-fold ("<" → \u003c) are
	// bounded too.
	evil := fmt.Sprintf(`{"kind":"graphcloak.report","version":1,"node":"%s","scope":"s","epoch":"e","releaseId":"r","grid":0,"value":0,"mac":""}`+"\n", strings.Repeat("<", 3000))
	body := []byte(strings.Repeat(evil, 100))
	resp, err := http.Post(srv.URL+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(answer) > len(body) {
		t.Errorf("escaped node names: %d-byte request, %d-byte answer", len(body), len(answer))
	}
	t.Logf("escaped node names: %d-byte request, %d-byte answer", len(body), len(answer))
}

// A body that trickles in is cut off at the handler's body deadline:
// answered 408 and the connection closed, before the client has sent
// what it meant to (before: held open as long as the client liked). The
// client sends one byte every 20 ms for up to 10 s; the deadline is 200 ms.
func TestSlowBodyClosed(t *testing.T) {
	srv, _, _ := limitsServer(t, func(h *Handler) { h.BodyTimeout = 200 * time.Millisecond })
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /epoch/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n")
	answered := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- "closed: " + err.Error()
			return
		}
		answered <- resp.Status
	}()
	for i := 0; i < 500; i++ {
		select {
		case got := <-answered:
			if !strings.HasPrefix(got, "408") {
				t.Errorf("slow body answered %q, want 408", got)
			}
			return
		case <-time.After(20 * time.Millisecond):
			conn.Write([]byte(" "))
		}
	}
	t.Errorf("a body trickling for 10 s was still being read (the deadline is 200 ms)")
}

// LimitListener holds at most n connections: with n = 1, a second client
// is served only once the first has gone.
func TestConnectionCap(t *testing.T) {
	nodes, keys := testKeys(2)
	c := openTest(t, testOrder(nodes), keys, t.TempDir(), &clock{t0})
	defer c.Close()
	h := &Handler{Collector: c, Order: []byte(`{}`)}
	mux := http.NewServeMux()
	h.Routes(mux)
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = LimitListener(srv.Listener, 1)
	srv.Start()
	defer srv.Close()
	a, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(a, "GET /epoch/progress HTTP/1.1\r\nHost: x\r\n\r\n") // served, then kept alive: holds the one slot
	if resp, err := http.ReadResponse(bufio.NewReader(a), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("first client: %v", err)
	}
	b, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fmt.Fprintf(b, "GET /epoch/progress HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	br := bufio.NewReader(b)
	b.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := http.ReadResponse(br, nil); err == nil {
		t.Fatalf("the second client was served while the first held the only connection")
	}
	a.Close()
	b.SetReadDeadline(time.Time{})
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Errorf("second client after the first left: %v", err)
	}
}

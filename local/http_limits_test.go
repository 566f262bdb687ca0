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

// The collector is no amplifier: a batch of "{}" lines is answered with
// at most as many bytes as were sent (its first line refused, the rest not
// read), and so is a batch whose node names the JSON encoder escapes
// six-fold ("<" → \u003c). A batch of real reports still gets every
// result.
func TestAnswerNoLargerThanRequest(t *testing.T) {
	srv, o, keys := limitsServer(t, nil)
	evil := fmt.Sprintf(`{"kind":"graphcloak.report","version":1,"node":"%s","scope":"s","epoch":"e","releaseId":"r","grid":0,"value":0,"mac":""}`+"\n", strings.Repeat("<", 3000))
	for _, body := range [][]byte{bytes.Repeat([]byte("{}\n"), 1000), []byte(evil)} {
		resp, err := http.Post(srv.URL+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(answer) > max(len(body), MinAnswerBudget) {
			t.Errorf("%d-byte request: %d-byte answer", len(body), len(answer))
		}
		t.Logf("%d-byte request: %d-byte answer", len(body), len(answer))
		var br BatchResult
		if err := json.Unmarshal(answer, &br); err != nil || br.Refused != 1 || len(br.Results)+br.Omitted != 1 {
			t.Errorf("%d-byte request: status %d, refused %d, refusals %v, %d results + %d omitted (%v)", len(body), resp.StatusCode, br.Refused, br.Refusals, len(br.Results), br.Omitted, err)
		}
	}
	good := jsonl(t, report(o, keys, "n0", 1), report(o, keys, "n1", 2), report(o, keys, "n2", 3))
	if s, br := post(t, srv.URL, good); s != 200 || len(br.Results) != 3 || br.Omitted != 0 {
		t.Errorf("three reports: %d %+v", s, br)
	}
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
	fmt.Fprintf(conn, "POST /epoch/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: 4000\r\n\r\n") // within the batch limit of 4 reports
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

package local

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// gateServer is a collector of 4 nodes behind LimitListener(n, perClient)
// (as serve runs it: ConnContext set, so that reports vouch).
func gateServer(t *testing.T, n, perClient int) (*httptest.Server, Order, map[string][]byte) {
	t.Helper()
	nodes, keys := testKeys(4)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	t.Cleanup(c.Close)
	mux := http.NewServeMux()
	(&Handler{Collector: c, Order: []byte(`{}`)}).Routes(mux)
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = LimitListener(srv.Listener, n, perClient)
	srv.Config.ConnContext = ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, o, keys
}

// dialIdle opens n connections that send nothing, or (keepAlive) one
// request each and then nothing (a keep-alive connection held idle).
func dialIdle(t *testing.T, addr string, n int, keepAlive bool) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if keepAlive {
			fmt.Fprintf(c, "GET /epoch/progress HTTP/1.1\r\nHost: x\r\n\r\n")
			c.SetReadDeadline(time.Now().Add(2 * time.Second)) // not served (all slots held): left waiting
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close()
			}
		}
		conns[i] = c
	}
	return conns
}

// stillOpen counts the connections the server has not closed (a read
// that times out rather than ending).
func stillOpen(conns []net.Conn) int {
	open := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			open++
		}
	}
	return open
}

// sensorConn dials addr and posts body (a report: 200) on the
// connection, which it returns, kept alive.
func sensorConn(t *testing.T, addr string, body []byte) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	br := bufio.NewReader(c)
	if s, res := postOn(t, c, br, body); s != 200 {
		t.Fatalf("report: %d %+v", s, res)
	}
	return c, br
}

// postOn posts body on the open connection c (HTTP/1.1, kept alive).
func postOn(t *testing.T, c net.Conn, br *bufio.Reader, body []byte) (int, BatchResult) {
	t.Helper()
	fmt.Fprintf(c, "POST /epoch/reports HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer on the connection: %v", err)
	}
	defer resp.Body.Close()
	var res BatchResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, res
}

// An honest sensor's report is acknowledged while 100 idle connections
// (50 that never sent a byte, 50 kept alive after a request) are open from
// its own address, and they hold no more than the per-client cap (before:
// the listener's n slots were held and the report waited for as long as
// they were — here, without server timeouts, for ever).
func TestHonestReportBesideIdleConnections(t *testing.T) {
	const n, perClient = 8, 4
	srv, o, keys := gateServer(t, n, perClient)
	addr := srv.Listener.Addr().String()
	hostile := append(dialIdle(t, addr, 50, false), dialIdle(t, addr, 50, true)...)
	client := &http.Client{Timeout: 10 * time.Second} // a bound on the test, not a timing claim
	resp, err := client.Post(srv.URL+"/epoch/reports", "application/x-ndjson", bytes.NewReader(jsonl(t, report(o, keys, "n0", 1))))
	if err != nil {
		t.Fatalf("honest report beside 100 idle connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("honest report: status %d, want 200", resp.StatusCode)
	}
	if open := stillOpen(hostile); open > perClient {
		t.Errorf("%d idle connections of one address still open; the per-client cap is %d", open, perClient)
	}
}

// A connection that carried a report whose MAC verifies is not closed to
// make room: idle connections opened after it take turns in the other
// slot, and once every slot has vouched a new connection is refused.
func TestVouchedConnectionKept(t *testing.T) {
	srv, o, keys := gateServer(t, 2, 2)
	addr := srv.Listener.Addr().String()
	honest, br := sensorConn(t, addr, jsonl(t, report(o, keys, "n0", 1)))
	hostile := dialIdle(t, addr, 20, true)
	if open := stillOpen(hostile); open != 1 {
		t.Errorf("%d idle connections open beside the vouched one, want 1 (the newest)", open)
	}
	if s, res := postOn(t, honest, br, jsonl(t, report(o, keys, "n1", 2))); s != 200 {
		t.Errorf("second report on the vouched connection: %d %+v", s, res)
	}
	sensorConn(t, addr, jsonl(t, report(o, keys, "n2", 3))) // the other slot
	late := dialIdle(t, addr, 1, false)
	if open := stillOpen(late); open != 0 {
		t.Errorf("a new connection was held while both slots had vouched")
	}
}

// A junk batch is refused before it is read in full: one whose
// Content-Length is over the batch limit (one report per node) is 413
// at once, and a chunked one stops at its first line that is not a report
// (before: the whole body was read first, up to 4 MiB and the body
// deadline, 30 s, whatever it held).
func TestJunkRefusedEarly(t *testing.T) {
	srv, _, _ := gateServer(t, 8, 8)
	addr := srv.Listener.Addr().String()
	for _, tc := range []struct {
		name, head, first string
		status            int
	}{
		{"4 MiB declared", fmt.Sprintf("Content-Length: %d\r\n", 4<<20), "{}\n{}\n", http.StatusRequestEntityTooLarge},
		{"chunked", "Transfer-Encoding: chunked\r\n", "6\r\n{}\n{}\n\r\n", http.StatusUnprocessableEntity},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// The rest of the body is never sent: an answer proves it was not
		// waited for.
		fmt.Fprintf(c, "POST /epoch/reports HTTP/1.1\r\nHost: x\r\n%s\r\n%s", tc.head, tc.first)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%s: no answer before the body was sent in full: %v", tc.name, err)
			c.Close()
			continue
		}
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, resp.StatusCode, tc.status, answer)
		}
		c.Close()
	}
}

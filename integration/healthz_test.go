//go:build unix

package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// boltProxy forwards TCP connections to the test's Neo4j; cut closes the
// listener and every connection (the database is gone, as when the
// server or the network goes down), restore listens again on the same
// address. No Neo4j behaviour is imitated: every byte is the server's.
type boltProxy struct {
	t      *testing.T
	addr   string // 127.0.0.1:port
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	// accepted counts the connections accepted (a driver opens at
	// least one; the drivers of one process share theirs).
	accepted atomic.Int64
}

func newBoltProxy(t *testing.T, boltURI string) *boltProxy {
	t.Helper()
	u, err := url.Parse(boltURI)
	if err != nil {
		t.Fatal(err)
	}
	p := &boltProxy{t: t, target: u.Host, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *boltProxy) uri() string { return "bolt://" + p.addr }

func (p *boltProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.accepted.Add(1)
			go p.forward(c)
		}
	}()
}

func (p *boltProxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); s.Close(); c.Close() }()
	_, _ = io.Copy(c, s)
	c.Close()
	s.Close()
}

func (p *boltProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *boltProxy) restore() {
	p.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port was just closed
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

// healthz is one poll of serve's /healthz: the status code and the body.
func pollHealthz(addr string) (int, map[string]any) {
	c := http.Client{Timeout: 10 * time.Second}
	res, err := c.Get("http://" + addr + "/healthz")
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

// waitHealthz polls /healthz until want(code, body), returning how long
// it took; a failure after within.
func (p *serveProcess) waitHealthz(t *testing.T, addr, what string, within time.Duration, want func(int, map[string]any) bool) time.Duration {
	t.Helper()
	t0 := time.Now()
	polls, ok := 0, 0
	for {
		code, body := pollHealthz(addr)
		polls++
		if want(code, body) {
			t.Logf("%s after %v (%d polls): %d %v", what, time.Since(t0).Round(time.Millisecond), polls, code, body)
			return time.Since(t0)
		}
		if code == http.StatusOK {
			ok++
		}
		select {
		case err := <-p.done:
			t.Fatalf("serve ended (%v):\n%s", err, p.stderr.String())
		default:
		}
		if time.Since(t0) > within {
			p.stop(t, syscall.SIGKILL, -1)
			t.Fatalf("%s: not within %v; %d polls, %d answered 200; last %d %v", what, within, polls, ok, code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func reasons(body map[string]any) string {
	return fmt.Sprint(body["reasons"])
}

// TestServeHealthzReflectsWork: serve's /healthz
// answers 503 with the reason while the database is unreachable and once
// the last --health-failed-slots slots failed, and 200 again when the
// service can work. Before, /healthz answered 200 in 187 of 187 polls
// during 2.5 min of Neo4j down (25 failed slots).
func TestServeHealthzReflectsWork(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{12, 12}, 0.5, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	values := f.readingsCSV(t)
	proxy := newBoltProxy(t, s.URI)
	addr := freeAddr(t)
	const slot = 2 * time.Second
	args := append([]string{"serve", "--schedule", "@every 2s", "--listen", addr, "--no-locate", "--health-failed-slots", "2"},
		replaceFlag(e.projectionFlags(), "--uri", proxy.uri())...)
	args = append(args, "--values", values, "--write-property", e.write, "--tau", "0.5", "--epsilon", "0.2",
		"--delta", "1e-5", "--ledger", "neo4j", "--scope", e.scope, "--connect-timeout", "2")
	srv := startServe(t, s, args)
	healthy := func(code int, body map[string]any) bool { return code == http.StatusOK && body["status"] == "ok" }
	srv.waitMetrics(t, addr, 2*time.Minute, func(m map[string]float64) bool {
		return m[`graphcloak_runs_total{command="release",status="succeeded"}`] >= 1
	})
	srv.waitHealthz(t, addr, "healthy while serving", 30*time.Second, healthy)

	// The database goes away: 503 naming it, within one slot (and the
	// probe's interval and timeout).
	proxy.cut()
	took := srv.waitHealthz(t, addr, "503 with the database down", 2*time.Minute, func(code int, body map[string]any) bool {
		return code == http.StatusServiceUnavailable && body["status"] == "unhealthy" && strings.Contains(reasons(body), "database unreachable")
	})
	if limit := slot + 10*time.Second; took > limit {
		t.Errorf("/healthz took %v to turn 503 after the database went down, want ≤ %v", took, limit)
	}
	proxy.restore()
	srv.waitHealthz(t, addr, "healthy again with the database back", 2*time.Minute, healthy)

	// The database answers but every slot fails (its readings file is
	// gone): 503 once the last 2 slots failed, naming the failure.
	if err := os.Rename(values, values+".away"); err != nil {
		t.Fatal(err)
	}
	srv.waitHealthz(t, addr, "503 after 2 failed slots", 2*time.Minute, func(code int, body map[string]any) bool {
		return code == http.StatusServiceUnavailable && strings.Contains(reasons(body), "the last 2 slots failed") &&
			strings.Contains(reasons(body), "readings.csv") && !strings.Contains(reasons(body), "database unreachable")
	})
	if err := os.Rename(values+".away", values); err != nil {
		t.Fatal(err)
	}
	srv.waitHealthz(t, addr, "healthy after a succeeded slot", 2*time.Minute, healthy)
	srv.stop(t, syscall.SIGTERM, 0)
}

//go:build unix

package integration

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// One Neo4j driver per serve process (DESIGN.md): the stores serve opens
// are also what its operator page and /healthz read through. Serve is
// started (no slot due within the test) behind a bolt proxy that counts
// the TCP connections it accepts; the page loaded and /healthz polled
// five times each (each poll past the probe's reuse interval) open no new
// connection, where a driver per request (the page's before) opens one
// at least per load; the log says "connected to neo4j" once (Stores.Open).
func TestServeOneDriver(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{12, 12}, 0.5, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	values := f.readingsCSV(t)
	proxy := newBoltProxy(t, s.URI)
	addr := freeAddr(t)
	// 1 January at 00:00: no slot runs while the test does.
	args := append([]string{"serve", "--schedule", "0 0 1 1 *", "--listen", addr, "--no-locate"},
		replaceFlag(e.projectionFlags(), "--uri", proxy.uri())...)
	args = append(args, "--values", values, "--write-property", e.write, "--tau", "0.5", "--epsilon", "0.2",
		"--delta", "1e-5", "--ledger", "neo4j", "--scope", e.scope, "--log-level", "info")
	srv := startServe(t, s, args)
	srv.waitHealthz(t, addr, "healthy", time.Minute, func(code int, body map[string]any) bool {
		return code == http.StatusOK && body["status"] == "ok"
	})
	httpGet(t, "http://"+addr+"/") // the page's first read: the pool warmed
	before := proxy.accepted.Load()
	for i := range 5 {
		if page := httpGet(t, "http://"+addr+"/"); !strings.Contains(page, e.scope) {
			t.Errorf("load %d: the page does not name the scope %s", i, e.scope)
		}
		if i > 0 {
			time.Sleep(5*time.Second + 100*time.Millisecond) // past the probe's reuse (DefaultProbeInterval)
		}
		if code, body := pollHealthz(addr); code != http.StatusOK {
			t.Errorf("poll %d: /healthz %d %v", i, code, body)
		}
	}
	opened := proxy.accepted.Load() - before
	srv.stop(t, syscall.SIGTERM, 0)
	if opened >= 5 {
		t.Errorf("5 page loads and 5 health checks opened %d connections: a driver of their own each", opened)
	}
	if n := strings.Count(srv.stderr.String(), "connected to neo4j"); n != 1 {
		t.Errorf("serve connected %d times, want once:\n%s", n, srv.stderr.String())
	}
	t.Logf("connections accepted by the proxy: %d before the loads, %d during them", before, opened)
}

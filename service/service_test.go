package service

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/metrics"
	"github.com/graphcloak/graphcloak/schedule"
)

func healthz(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Issue 33, defect 7: /healthz answers 503 as soon as shutdown begins —
// while the current run is still going (it has its grace), not after it.
// The order is observed through channels: the run is held until the test
// has seen 503, so it cannot pass by timing.
func TestHealthUnavailableWhenShutdownBegins(t *testing.T) {
	spec, err := schedule.Parse("@every 1s")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	s := &Service{Runner: &schedule.Runner{Spec: spec, Grace: time.Hour}, Metrics: metrics.New(), Listener: ln}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	runEnded := make(chan struct{})
	go func() {
		done <- s.Run(ctx, func(runCtx context.Context, _ time.Time) error {
			select {
			case <-started:
				return nil // later slots: nothing to do
			default:
			}
			close(started)
			<-release // the run goes on until the test lets it end
			close(runEnded)
			return nil
		})
	}()
	<-started
	if code := healthz(t, addr); code != http.StatusOK {
		t.Fatalf("/healthz while serving: %d, want 200", code)
	}
	cancel() // shutdown begins; the run is still held
	for polls := 0; ; polls++ {
		if polls == 1000 {
			t.Fatal("/healthz still answers 200 after shutdown began (it must turn 503 before the run ends)")
		}
		code := healthz(t, addr)
		select {
		case <-runEnded:
			t.Fatal("the run ended before the test released it")
		default:
		}
		if code == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling, not a timing assertion: 503 must come while the run is held
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// Page, when given, answers "/" exactly; /metrics and /healthz stay the
// metrics' own, and other paths are not the page.
func TestPageAtRoot(t *testing.T) {
	spec, err := schedule.Parse("@every 1h")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "the page") })
	s := &Service{Runner: &schedule.Runner{Spec: spec}, Metrics: metrics.New(), Listener: ln, Page: page}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, func(context.Context, time.Time) error { return nil }) }()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/"); code != http.StatusOK || body != "the page" {
		t.Errorf("/: %d %q", code, body)
	}
	if code, body := get("/metrics"); code != http.StatusOK || !strings.Contains(body, "graphcloak_") {
		t.Errorf("/metrics: %d %q", code, body)
	}
	if code := healthz(t, addr); code != http.StatusOK {
		t.Errorf("/healthz: %d", code)
	}
	if code, body := get("/nothing"); code != http.StatusNotFound || body == "the page" {
		t.Errorf("/nothing: %d %q", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// The listener's error is the service's: when it stops serving, the
// scheduler shuts down and Run returns the error instead of running on
// without /metrics and /healthz.
func TestListenerErrorReturned(t *testing.T) {
	spec, err := schedule.Parse("@every 1h")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // accepting fails at once
	s := &Service{Runner: &schedule.Runner{Spec: spec}, Metrics: metrics.New(), Listener: ln}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), func(context.Context, time.Time) error { return nil }) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "listener") {
			t.Errorf("Run: %v, want the listener's error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run went on after its listener failed")
	}
}

package jobfiles

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// An audit is reused when the certificate the answer would read — the
// --answer-cache file, else the store's — verifies against the graph, τ
// and the fit; a missing, stale or other-τ certificate runs the pass ("").
func TestAuditReused(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	g, part := laplacian.Karate()
	opt := recovery.CertifierOptions{Tol: recovery.DefaultFitTolerance}
	m, err := answer.NewModel(context.Background(), g, 2, part, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	name := func(p errkind.Param) string { return "--" + string(p) }
	file := filepath.Join(t.TempDir(), "answer.json")
	storeDir := t.TempDir()
	reused := func(path string, tau float64) string {
		return AuditReused(cfg, path, storeDir, logger, g, tau, opt, name)
	}
	if got := reused(file, 2); got != "" {
		t.Errorf("no certificate yet: %q, want the pass run", got)
	}
	if got := reused("", 2); got != "" {
		t.Errorf("an empty store: %q, want the pass run", got)
	}
	cache, err := AnswerCache(cfg, file)
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Store(m); err != nil {
		t.Fatal(err)
	}
	if got := reused(file, 2); !strings.Contains(got, "--answer-cache verifies") {
		t.Errorf("the file's certificate: %q, want it named as verifying", got)
	}
	if got := reused(file, 3); got != "" {
		t.Errorf("another τ: %q, want the pass run", got)
	}
	if got := reused("", 2); got != "" {
		t.Errorf("the store without the certificate: %q, want the pass run", got)
	}
	w, err := WorkStore(cfg, storeDir, logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Answer(g, 2, opt.Tol, opt.SensorNoise).Store(m); err != nil {
		t.Fatal(err)
	}
	if got := reused("", 2); !strings.Contains(got, "the store") {
		t.Errorf("the store's certificate: %q, want it named as reused from the store", got)
	}
}

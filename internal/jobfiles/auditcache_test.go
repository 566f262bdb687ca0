package jobfiles

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// An audit keeps its certificate in the file it saves (sealed, with the
// store's entry beside it unless it is a shard's part), else in the
// store's entry for the graph and parameters; with neither it is refused
// naming both parameters.
func TestAuditCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	g, _ := laplacian.Karate()
	cfg := &config.Config{}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	opt := recovery.CertifierOptions{Tol: recovery.DefaultFitTolerance}
	storeDir := t.TempDir()
	save := filepath.Join(t.TempDir(), "answer.json")
	w, err := WorkStore(cfg, storeDir, logger)
	if err != nil {
		t.Fatal(err)
	}
	entry := w.Answer(g, 2, opt.Tol, opt.SensorNoise)

	cache, store, err := AuditCache(cfg, save, storeDir, false, logger, g, 2, opt)
	if err != nil || cache.Path != save || len(cache.MACKey) == 0 || store == nil || store.Path != entry.Path {
		t.Errorf("--save with a store: cache %q, store %+v, %v; want %s beside the store's %s", cache.Path, store, err, save, entry.Path)
	}
	cache, store, err = AuditCache(cfg, save, storeDir, true, logger, g, 2, opt)
	if err != nil || cache.Path != save || store != nil {
		t.Errorf("a shard's part: cache %q, store %+v, %v; want %s alone", cache.Path, store, err, save)
	}
	cache, store, err = AuditCache(cfg, "", storeDir, false, logger, g, 2, opt)
	if err != nil || store == nil || cache.Path != entry.Path || store.Path != entry.Path {
		t.Errorf("the store alone: cache %q, store %+v, %v; want the store's %s", cache.Path, store, err, entry.Path)
	}
	_, _, err = AuditCache(cfg, "", "none", false, logger, g, 2, opt)
	if errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }),
		"--save FILE is required with --cache-dir none") {
		t.Errorf("neither a file nor a store: %v, want a usage error naming --save and --cache-dir", err)
	}
}

// The checkpoint's period: the pass's default unless a duration is set,
// every block for zero or less.
func TestCheckpointEvery(t *testing.T) {
	for env, want := range map[string]time.Duration{"": 0, "soon": 0, "0s": -1, "-2s": -1, "1ms": time.Millisecond, "5s": 5 * time.Second} {
		t.Setenv(CheckpointPeriodEnv, env)
		if got := CheckpointEvery(); got != want {
			t.Errorf("%s=%q: %v, want %v", CheckpointPeriodEnv, env, got, want)
		}
	}
}

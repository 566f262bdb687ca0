package jobfiles

import (
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
)

// TestParseBytes: sizes with and without units; anything else refused.
func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "2K": 2048, "3M": 3 << 20, "1G": 1 << 30, "5mb": 5 << 20, "1GiB": 1 << 30} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "lots", "1T", "1.5G"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}

// The store's bound comes from StoreMaxEnv (a bad one is bad input naming
// it); "none" is no store; a directory is that store, bounded.
func TestWorkStore(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the installation key is made there
	cfg := &config.Config{}
	t.Setenv(StoreMaxEnv, "")
	if n, err := StoreMaxBytes(); err != nil || n != job.DefaultStoreMaxBytes {
		t.Errorf("unset: %d, %v; want %d", n, err, job.DefaultStoreMaxBytes)
	}
	if w, err := WorkStore(cfg, "none", nil); w != nil || err != nil {
		t.Errorf("none: %v, %v; want no store", w, err)
	}
	t.Setenv(StoreMaxEnv, "2M")
	dir := t.TempDir()
	w, err := WorkStore(cfg, dir, nil)
	if err != nil || w == nil || w.Dir != dir || w.MaxBytes != 2<<20 || len(w.MACKey) == 0 || w.Software == "" {
		t.Fatalf("WorkStore(%s) = %+v, %v", dir, w, err)
	}
	t.Setenv(StoreMaxEnv, "lots")
	if _, err := WorkStore(cfg, dir, nil); errkind.Of(err) != errkind.BadInput {
		t.Errorf("a bound that is no size: %v (kind %v), want bad input", err, errkind.Of(err))
	}
}

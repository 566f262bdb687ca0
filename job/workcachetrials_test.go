package job

import (
	"bytes"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
)

// TestWorkCacheKeepsTrials: a sweep given the work cache's trial files
// (keepingTrials) keeps a pool's blocks in the cache's directory, under
// its key, and another run on that directory reads them back; without
// a cache the sweep keeps none.
func TestWorkCacheKeepsTrials(t *testing.T) {
	w := &WorkCache{Dir: t.TempDir(), MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	s := w.keepingTrials(forecast.EpsilonSweep{})
	if s.KeptTrials == nil || s.KeepTrials == nil || s.HasTrials == nil {
		t.Fatal("the sweep is given no trial files")
	}
	s.KeepTrials("k-0", []float64{1, 2, 3})
	again := (&WorkCache{Dir: w.Dir, MACKey: w.MACKey, Software: "v1"}).keepingTrials(forecast.EpsilonSweep{})
	x, ok := again.KeptTrials("k-0", 3)
	if !ok || len(x) != 3 || x[2] != 3 || !again.HasTrials("k-0", 3) {
		t.Fatalf("the kept block is not read back: %v, %v", x, ok)
	}
	if es, err := w.Entries(); err != nil || len(es) != 1 {
		t.Fatalf("the store lists %v (%v): want the block's one file", es, err)
	}
	var none *WorkCache
	if s := none.keepingTrials(forecast.EpsilonSweep{}); s.KeepTrials != nil {
		t.Fatal("a sweep without a cache is given trial files")
	}
}

package job

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
)

// TestKeptTrialsAreSealed: trialFiles keeps a pool's block of trials and
// reads it back to the bit (signed zeros, subnormals,
// infinities and NaN payloads too); a file with a byte changed, cut short,
// read for another number of floats, by another build or under another
// key is not read.
func TestKeptTrialsAreSealed(t *testing.T) {
	tm := &trialFiles{dir: t.TempDir(), macKey: bytes.Repeat([]byte{7}, 32), software: "v1", budget: 1 << 20}
	x := []float64{0, math.Copysign(0, -1), 1e-310, math.Inf(-1), math.Float64frombits(0x7ff8_0000_dead_beef), 1.0 / 3, -2.5e300}
	tm.store("k-0", x)
	got, ok := tm.load("k-0", len(x))
	if !ok || len(got) != len(x) {
		t.Fatalf("the block kept is not read back: %v, %v", got, ok)
	}
	for i := range x {
		if math.Float64bits(got[i]) != math.Float64bits(x[i]) {
			t.Fatalf("float %d read back as %x, kept %x", i, math.Float64bits(got[i]), math.Float64bits(x[i]))
		}
	}
	if !tm.has("k-0", len(x)) || tm.has("k-0", len(x)+1) || tm.has("k-1", len(x)) {
		t.Fatal("has does not say what is kept")
	}
	if _, ok := tm.load("k-0", len(x)+1); ok {
		t.Fatal("a block read for another number of floats")
	}
	if _, ok := tm.load("k-1", len(x)); ok {
		t.Fatal("a block never kept was read")
	}
	for _, om := range []*trialFiles{
		{dir: tm.dir, macKey: tm.macKey, software: "v2"},
		{dir: tm.dir, macKey: bytes.Repeat([]byte{8}, 32), software: "v1"},
	} {
		if _, ok := om.load("k-0", len(x)); ok {
			t.Fatalf("a block read by another build or under another key (%s)", om.software)
		}
		if om.software != tm.software && om.has("k-0", len(x)) {
			t.Fatal("another build is told the block is kept")
		}
	}
	path := filepath.Join(tm.dir, "trials-k-0.bin")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, edited := range map[string][]byte{
		"a float's byte changed": append(bytes.Clone(b[:len(b)-3]), b[len(b)-3]^1, b[len(b)-2], b[len(b)-1]),
		"cut short":              b[:len(b)-8],
		"a float more":           append(bytes.Clone(b), make([]byte, 8)...),
	} {
		if err := os.WriteFile(path, edited, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := tm.load("k-0", len(x)); ok {
			t.Fatalf("a block %s was read", name)
		}
		if len(edited) != len(b) && tm.has("k-0", len(x)) {
			t.Fatalf("a block %s is said kept", name)
		}
	}
}

// TestKeptTrialsWithinTheirShare: a sweep's trial files keep blocks up to
// their budget and no further (the store's certificates stay), and the
// work cache gives a sweep a quarter of its bound.
func TestKeptTrialsWithinTheirShare(t *testing.T) {
	tf := &trialFiles{dir: t.TempDir(), macKey: bytes.Repeat([]byte{7}, 32), software: "v1", budget: 2 * 8 * 100}
	x := make([]float64, 100)
	for _, k := range []string{"a", "b", "c"} {
		tf.store(k, x)
	}
	for k, want := range map[string]bool{"a": true, "b": true, "c": false} {
		if _, ok := tf.load(k, len(x)); ok != want {
			t.Errorf("block %s kept: %v, want %v (a budget of two blocks)", k, ok, want)
		}
	}
	w := &WorkCache{Dir: t.TempDir(), MACKey: tf.macKey, Software: "v1", MaxBytes: 4000}
	s := w.keepingTrials(forecast.EpsilonSweep{})
	s.KeepTrials("a", make([]float64, 125)) // 1000 bytes: the whole quarter
	s.KeepTrials("b", make([]float64, 1))
	if !s.HasTrials("a", 125) || s.HasTrials("b", 1) {
		t.Fatal("the work cache's sweep does not keep its trials within a quarter of the store's bound")
	}
}

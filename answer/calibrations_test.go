package answer

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// The calibrations stored beside an answer certificate are reused by a new
// process (the same mechanism, to the bit) only for the same model's
// geometry and only when they verify: a forged file under a ledger key, or
// weights that lose more than ε over an edge without one, are calibrated
// again and replaced.
func TestAnswerCalibrationCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // this installation's key
	ctx := context.Background()
	g, part := laplacian.Karate()
	dir := t.TempDir()
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	open := func(key []byte, part []int) (*Cache, *Model) {
		c := &Cache{Path: filepath.Join(dir, "answer.json"), MACKey: key, Software: "v-test"}
		m, err := c.Model(ctx, g, 1, part, nil, recovery.CertifierOptions{}, log)
		if err != nil {
			t.Fatal(err)
		}
		return c, m
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	c, m := open(key, part)
	first, err := c.Calibrate(ctx, m, 1, 1, 0, log)
	if err != nil {
		t.Fatal(err)
	}
	path := c.Path + CalibrationsSuffix
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no calibrations stored: %v", err)
	}
	// A new process: a new model from the certificate, its calibration
	// from the file.
	logs.Reset()
	c2, m2 := open(key, part)
	second, err := c2.Calibrate(ctx, m2, 1, 1, 0, log)
	if err != nil || !strings.Contains(logs.String(), "calibration reused from the cache") {
		t.Fatalf("second calibration: %v, log %s", err, logs.String())
	}
	for s := 0; s < g.N(); s++ {
		if !slices.Equal(first.ProbabilitiesAt(m.Geometry, s), second.ProbabilitiesAt(m2.Geometry, s)) {
			t.Fatalf("node %d: the restored mechanism differs from the calibrated one", s)
		}
	}
	// Forged under a ledger key: recalibrated and replaced.
	var file Calibrations
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	file.Entries[0].Record.Calibration.Accuracy = 0.99
	forged, _ := json.Marshal(file)
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	c3, m3 := open(key, part)
	if _, err := c3.Calibrate(ctx, m3, 1, 1, 0, log); err != nil || !strings.Contains(logs.String(), "not authenticated") {
		t.Fatalf("forged calibrations: %v, log %s", err, logs.String())
	}
	// Without a ledger key, weights that lose more than ε sealed under
	// this installation's key (authentic, yet wrong): the restore's full
	// check of the loss over every edge refuses them; recalibrated.
	if rec := file.Entries[0].Record; rec.Envelope != nil {
		for v := range rec.Envelope.A {
			rec.Envelope.A[v] /= 1 + int64(v%2)*10
		}
	} else {
		file.Entries[0].Record.Calibration.ScaleNum *= 4
		file.Entries[0].Record.Calibration.Scale *= 4
	}
	file.MAC = ""
	if file.MAC, err = (Cache{}).seal(file.mac); err != nil {
		t.Fatal(err)
	}
	loose, _ := json.Marshal(file)
	if err := os.WriteFile(path, loose, 0o644); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	c4, m4 := open(nil, part)
	cal4, err := c4.Calibrate(ctx, m4, 1, 1, 0, log)
	if err != nil || !strings.Contains(logs.String(), "unusable") || cal4.Loss > 1 {
		t.Fatalf("over-ε weights: %v (loss %v), log %s", err, cal4.Loss, logs.String())
	}
	// Another partition: its own calibration, not the stored one.
	moved := slices.Clone(part)
	moved[0] = 1 - moved[0]
	logs.Reset()
	c5, m5 := open(nil, moved)
	if _, err := c5.Calibrate(ctx, m5, 1, 1, 0, log); err != nil || strings.Contains(logs.String(), "reused from the cache") {
		t.Fatalf("another partition: %v, log %s", err, logs.String())
	}
}

package job

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// storeBytes is the size of the store's files (temporary ones included:
// a bound that ignored them would not bound the directory).
func storeBytes(t *testing.T, dir string) (total int64, names []string) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
		names = append(names, de.Name())
	}
	return total, names
}

// TestWorkStorePrunesLeastRecentlyUsed: kept past its bound, the store
// removes the files used longest ago — a file read back is used, so it
// outlives one written after it but not read — and its size, measured
// from the directory, ends within the bound; Prune(0) empties it.
func TestWorkStorePrunesLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	w := &WorkCache{Dir: dir, MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	m := w.Forecasts()
	f := forecast.Forecast{Mode: forecast.ModePerNode, Epsilon: 2, CommunityAccuracy: 0.41, Trials: 200}
	base := time.Now().Add(-time.Hour)
	for i, k := range []string{"a", "b", "c"} {
		m.Store(k, f)
		// Distinct use times, a minute apart, without sleeping.
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, "forecast-"+k+".json"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	one, _ := storeBytes(t, dir)
	one /= 3                       // the three files are the same size: one value, keys of one letter
	if _, ok := m.Load("a"); !ok { // a, the oldest, is used now
		t.Fatal("a kept forecast was not read back")
	}
	w.MaxBytes = 2*one + one/2 // room for two
	m.Store("d", f)            // the newest; b is now the least recently used, then c
	total, names := storeBytes(t, dir)
	if total > w.MaxBytes {
		t.Fatalf("the store holds %d bytes over its bound %d: %v", total, w.MaxBytes, names)
	}
	for k, want := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		_, err := os.Stat(filepath.Join(dir, "forecast-"+k+".json"))
		if have := err == nil; have != want {
			t.Errorf("forecast %s kept %v, want %v (files %v)", k, have, want, names)
		}
	}
	if _, ok := m.Load("a"); !ok {
		t.Error("the forecast read back (used most recently but one) was pruned")
	}
	gone, err := w.Prune(0)
	if err != nil || len(gone) != 2 {
		t.Fatalf("Prune(0) removed %v (%v), want the 2 files", gone, err)
	}
	if total, names := storeBytes(t, dir); total != 0 || len(names) != 0 {
		t.Fatalf("after Prune(0): %d bytes in %v", total, names)
	}
}

// TestWorkStoreAnswerNameIsTheModels: the answer's entry is one file for
// the same graph read in any order and for T given as the default or left
// 0 (every command's defaults meet), another for another T, τ or ν.
func TestWorkStoreAnswerNameIsTheModels(t *testing.T) {
	w := &WorkCache{Dir: t.TempDir(), Software: "v1"}
	g, _ := laplacian.Karate()
	sorted, _, err := laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	if g.Fingerprint() == sorted.Fingerprint() {
		t.Fatal("the test needs a graph whose order is not key order")
	}
	path := func(g *laplacian.Graph, tau, tol, nu float64) string { return w.Answer(g, tau, tol, nu).Path }
	p := path(g, 1, recovery.DefaultFitTolerance, 0)
	for _, q := range []string{path(sorted, 1, recovery.DefaultFitTolerance, 0), path(g, 1, 0, 0)} {
		if q != p {
			t.Errorf("one model, two files: %s and %s", p, q)
		}
	}
	for _, q := range []string{path(g, 2, recovery.DefaultFitTolerance, 0), path(g, 1, 0.02, 0), path(g, 1, 0, 0.05)} {
		if q == p {
			t.Errorf("another model names the same file %s", p)
		}
	}
	if path(g, 1, 0.02, 0.05) != path(g, 1, 0, 0.05) {
		t.Error("with ν given, T (which ν decides) named another file")
	}
}

// TestWorkStoreConcurrentWriters: processes (here goroutines, each with a
// store of its own on one directory, as two commands have) writing the
// same certificate and forecasts at once, while others read, leave a store
// whose every file verifies and no temporary file; no reader ever sees a
// file that exists and does not verify (half written).
func TestWorkStoreConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	g, _ := laplacian.Karate()
	m, err := answer.NewModel(context.Background(), g, 1, make([]int, g.N()), nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{7}, 32)
	opt := recovery.CertifierOptions{}
	f := forecast.Forecast{Mode: forecast.ModeAnswer, Epsilon: 1, CommunityAccuracy: 0.5, Trials: 100}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	const writers, rounds = 4, 25
	for i := 0; i < writers; i++ {
		wg.Add(2)
		go func() { // a writer
			defer wg.Done()
			w := &WorkCache{Dir: dir, MACKey: key, Software: "v1"}
			for r := 0; r < rounds; r++ {
				if err := w.Answer(g, 1, 0, 0).Store(m); err != nil {
					mu.Lock()
					bad = append(bad, "store: "+err.Error())
					mu.Unlock()
				}
				w.Forecasts().Store("k", f)
			}
		}()
		go func() { // a reader
			defer wg.Done()
			w := &WorkCache{Dir: dir, MACKey: key, Software: "v1"}
			for r := 0; r < rounds; r++ {
				c := w.Answer(g, 1, 0, 0)
				if _, _, err := c.Load(g, 1, opt); err != nil && !errors.Is(err, fs.ErrNotExist) {
					mu.Lock()
					bad = append(bad, "load: "+err.Error())
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d failures, first: %s", len(bad), bad[0])
	}
	w := &WorkCache{Dir: dir, MACKey: key, Software: "v1"}
	if _, _, err := w.Answer(g, 1, 0, 0).Load(g, 1, opt); err != nil {
		t.Fatalf("the certificate left does not verify: %v", err)
	}
	if _, ok := w.Forecasts().Load("k"); !ok {
		t.Fatal("the forecast left does not verify")
	}
	_, names := storeBytes(t, dir)
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			t.Errorf("a temporary file was left: %s", n)
		}
	}
	if len(names) != 2 {
		t.Errorf("files %v, want the certificate and the forecast", names)
	}
}

// TestWorkStorePruneRemovesDeadWritersTemps: a temporary file older than
// any write (a writer killed before its rename) is removed by Prune; one
// being written now is left to its writer.
func TestWorkStorePruneRemovesDeadWritersTemps(t *testing.T) {
	dir := t.TempDir()
	w := &WorkCache{Dir: dir}
	dead, live := filepath.Join(dir, ".answer-x.json.tmp123"), filepath.Join(dir, ".answer-x.json.tmp456")
	for _, p := range []string{dead, live} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(dead, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Prune(1 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dead writer's temporary file is left: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a temporary file being written was removed: %v", err)
	}
}

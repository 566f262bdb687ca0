package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// storeCLI runs a command line and fails the test unless it exits 0.
func storeCLI(t *testing.T, args ...string) (string, string) {
	t.Helper()
	out, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out, stderr
}

// jsonField is doc's field at path (a.b.c), or nil.
func jsonField(t *testing.T, doc string, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestStoreReusedAcrossCommands: with default flags (no --cache-dir, no
// --answer-cache), plan computes the private answer's pass and keeps it in
// the user cache's store; locate --private-answer and audit then restore
// it — the answer's audit says restored, audit says reused, the logs say
// so and no "computing the model" line is written — and --estimate prices
// it as reused from the store. The certificate audit copies to --save is
// byte for byte the one a pass without the store writes. --cache-dir none
// computes again.
func TestStoreReusedAcrossCommands(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	readings := karateSourceReadings(t, filepath.Join(dir, "r.csv"), 3, 1)
	const computing = "no answer certificate cached yet: computing the model"
	const restoring = "answer model reused from the certificate"

	_, log := storeCLI(t, "plan", "--graph", "karate", "--epsilon", "1", "--trials", "20", "--modes", "private-answer", "--log-level", "info", "-o", "json")
	if !strings.Contains(log, computing) {
		t.Fatalf("plan on an empty store did not compute the pass:\n%s", log)
	}
	store := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "graphcloak", "store")
	if es, _ := os.ReadDir(store); len(es) == 0 {
		t.Fatalf("plan kept nothing in %s", store)
	}

	out, _ := storeCLI(t, "locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger,
		"--epsilon", "1", "--estimate")
	if !strings.Contains(out, "reused from the store") {
		t.Errorf("locate --estimate does not know the store holds the pass:\n%s", out)
	}
	out, log = storeCLI(t, "locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger,
		"--epsilon", "1", "--log-level", "info", "-o", "json")
	if r := jsonField(t, out, "answerAudit.restored"); r != true || strings.Contains(log, computing) || !strings.Contains(log, restoring) {
		t.Fatalf("locate --private-answer after plan: restored %v (want true), log:\n%s", r, log)
	}

	out, _ = storeCLI(t, "audit", "--graph", "karate", "--estimate")
	if !strings.Contains(out, "reused from the store") {
		t.Errorf("audit --estimate does not know the store holds the pass:\n%s", out)
	}
	saved := filepath.Join(dir, "answer.json")
	out, _ = storeCLI(t, "audit", "--graph", "karate", "--save", saved, "-o", "json")
	if r := jsonField(t, out, "reused"); r != true {
		t.Fatalf("audit after plan: reused %v, want true:\n%s", r, out)
	}
	out, _ = storeCLI(t, "audit", "--graph", "karate", "-o", "json") // the store's own entry
	if r := jsonField(t, out, "reused"); r != true || !strings.HasPrefix(jsonField(t, out, "save").(string), store) {
		t.Fatalf("audit with default flags: reused %v, want true, in the store %s:\n%s", r, store, out)
	}

	// Without the store: computed again, and the same certificate.
	fresh := filepath.Join(dir, "fresh.json")
	out, _ = storeCLI(t, "audit", "--graph", "karate", "--save", fresh, "--cache-dir", "none", "-o", "json")
	if r := jsonField(t, out, "reused"); r != false {
		t.Fatalf("audit --cache-dir none: reused %v, want false:\n%s", r, out)
	}
	a, errA := os.ReadFile(saved)
	b, errB := os.ReadFile(fresh)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Fatalf("the certificate copied from the store is not the one a pass writes (%v, %v)", errA, errB)
	}
	out, log = storeCLI(t, "locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger,
		"--epsilon", "1", "--cache-dir", "none", "--log-level", "info", "-o", "json")
	if r := jsonField(t, out, "answerAudit.restored"); r != false || strings.Contains(log, restoring) {
		t.Fatalf("locate --private-answer --cache-dir none: restored %v (want false), log:\n%s", r, log)
	}
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "audit", "--graph", "karate", "--cache-dir", "none"); code != exitUsage ||
		!strings.Contains(stderr, "--save") {
		t.Fatalf("audit --cache-dir none without --save: exit %d, want %d naming --save: %s", code, exitUsage, stderr)
	}
}

// TestStoreBoundAndPrune: GRAPHCLOAK_CACHE_MAX bounds the store a plan
// fills (its size, read from the directory, ends within it); "cache" lists
// it, "cache prune --max-bytes" keeps at most that many bytes and "cache
// prune" empties it; a bound that is not a size is bad input naming the
// variable.
func TestStoreBoundAndPrune(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	store := filepath.Join(t.TempDir(), "store")
	size := func() (int64, int) {
		es, err := os.ReadDir(store)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, e := range es {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
		return n, len(es)
	}
	plan := func() {
		storeCLI(t, "plan", "--graph", "karate", "--epsilon", "1,2", "--trials", "20", "--cache-dir", store, "-o", "json")
	}
	plan()
	full, files := size()
	if files < 4 {
		t.Fatalf("plan kept %d files; the test needs several", files)
	}
	out, _ := storeCLI(t, "cache", "--cache-dir", store, "-o", "json")
	if n := jsonField(t, out, "files"); n != float64(files) {
		t.Fatalf("cache lists %v files, the directory holds %d:\n%s", n, files, out)
	}

	storeCLI(t, "cache", "prune", "--cache-dir", store)
	if n, f := size(); n != 0 || f != 0 {
		t.Fatalf("cache prune left %d files, %d bytes", f, n)
	}
	bound := full / 2
	t.Setenv("GRAPHCLOAK_CACHE_MAX", strconv.FormatInt(bound, 10))
	plan()
	if n, f := size(); n > bound || f == 0 {
		t.Fatalf("bounded at %d bytes, the store holds %d in %d files", bound, n, f)
	}
	t.Setenv("GRAPHCLOAK_CACHE_MAX", "")
	plan()
	storeCLI(t, "cache", "prune", "--cache-dir", store, "--max-bytes", strconv.FormatInt(bound/2, 10))
	if n, _ := size(); n > bound/2 {
		t.Fatalf("cache prune --max-bytes %d left %d bytes", bound/2, n)
	}

	t.Setenv("GRAPHCLOAK_CACHE_MAX", "lots")
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--epsilon", "1", "--trials", "20", "--cache-dir", store)
	if code != exitBadInput || !strings.Contains(stderr, "GRAPHCLOAK_CACHE_MAX") {
		t.Fatalf("a bound that is no size: exit %d, want %d naming the variable: %s", code, exitBadInput, stderr)
	}
}

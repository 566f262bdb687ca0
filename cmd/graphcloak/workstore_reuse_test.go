package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseAndEpochReuseTheStoresDelta2: with default flags, plan keeps
// Δ2's certificate in the work store and release, epoch open and a second
// release read it from there (sensitivityReused, from the commands' own
// JSON) — karate's keys are not in key order, and plan sorts the graph
// while release and epoch do not, so this also checks that one graph names
// one certificate. A release with --cache-dir none computes Δ2 again and
// keeps nothing. On 2a43d64 release and epoch used only
// --sensitivity-cache, never the store.
func TestReleaseAndEpochReuseTheStoresDelta2(t *testing.T) {
	r := newCollectRig(t) // isolateConfig: an empty store in a fresh XDG_CACHE_HOME
	store := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "graphcloak", "store")
	readings, _ := karateReadings(t, r.dir, false)
	release := func(epoch string, extra ...string) string {
		args := append([]string{"release", "--graph", "karate", "--tau", "1", "--values", readings,
			"--out", filepath.Join(r.dir, epoch+".json"), "--ledger", r.ledger, "--scope", "building-7", "--epoch", epoch,
			"--epsilon", "0.5", "--delta", "1e-7", "-o", "json"}, extra...)
		return mustRun(t, args...)
	}

	out := release("none-1", "--cache-dir", "none")
	if got := jsonField(t, out, "sensitivityReused"); got != false {
		t.Fatalf("release --cache-dir none on an empty store: sensitivityReused %v, want false", got)
	}
	if es, _ := os.ReadDir(store); len(es) != 0 {
		t.Fatalf("release --cache-dir none kept %d files in %s", len(es), store)
	}

	mustRun(t, "plan", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--modes", "per-node", "--trials", "20", "-o", "json")
	var delta2 []string
	es, _ := os.ReadDir(store)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), "delta2-") {
			delta2 = append(delta2, e.Name())
		}
	}
	if len(delta2) != 1 {
		t.Fatalf("plan kept %d Δ2 certificates in the store (%v), want 1", len(delta2), delta2)
	}

	out = release("store-1")
	if got := jsonField(t, out, "sensitivityReused"); got != true {
		t.Fatalf("release after plan, default flags: sensitivityReused %v, want true (plan's certificate in %s)", got, store)
	}
	sum := r.open(t, "order-1", filepath.Join(r.dir, "order-1.json"))
	if !sum.SensitivityReused {
		t.Fatalf("epoch open after plan, default flags: sensitivityReused false, want true")
	}
	out = release("none-2", "--cache-dir", "none")
	if got := jsonField(t, out, "sensitivityReused"); got != false {
		t.Fatalf("release --cache-dir none with a full store: sensitivityReused %v, want false", got)
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSensitivityAndReleaseShareTheStoresDelta2: with default flags the
// sensitivity command and a release share Δ2 through the work store both
// ways. sensitivity keeps its exact Δ2; run again it says reused (the
// same bits, the method that computed it, kappa2 null) and computes
// nothing; release --estimate then prices Δ2 at 0 s "reused from the
// store", and the release reuses it (sensitivityReused, its log). In a
// fresh store a release keeps Δ2 and sensitivity reuses it.
// --cache-dir none computes. Before issue 73 (a)/(b) sensitivity neither
// read nor wrote the store and release --estimate priced Δ2 as computed.
func TestSensitivityAndReleaseShareTheStoresDelta2(t *testing.T) {
	isolateConfig(t) // an empty store in a fresh XDG_CACHE_HOME
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	readings, _ := karateReadings(t, dir, false)
	sens := func(extra ...string) string {
		out, _ := storeCLI(t, append([]string{"sensitivity", "--graph", "karate", "--tau", "1", "-o", "json"}, extra...)...)
		return out
	}
	release := func(epoch string) (string, string) {
		return storeCLI(t, "release", "--graph", "karate", "--tau", "1", "--values", readings, "--ledger", ledger,
			"--epsilon", "0.5", "--delta", "1e-7", "--out", filepath.Join(dir, epoch+".json"), "--epoch", epoch,
			"--log-level", "info", "-o", "json")
	}
	delta2Step := func() *estimateStep {
		t.Helper()
		e := runEstimate(t, "release", "--graph", "karate", "--tau", "1", "--values", readings, "--ledger", ledger,
			"--out", filepath.Join(dir, "estimate.json"))
		s := e.step("Δ2 at τ = 1")
		if s == nil {
			t.Fatalf("release --estimate has no Δ2 step: %+v", e.Steps)
		}
		return s
	}

	first := sens()
	if jsonField(t, first, "reused") != nil || jsonField(t, first, "exact") != true {
		t.Fatalf("sensitivity on an empty store: %s", first)
	}
	second := sens()
	method, _ := jsonField(t, first, "method").(string)
	if jsonField(t, second, "reused") != true || jsonField(t, second, "delta2") != jsonField(t, first, "delta2") ||
		jsonField(t, second, "method") != "certificate:"+method || jsonField(t, second, "kappa2") != nil {
		t.Fatalf("sensitivity again: %s\nwant Δ2 reused from the first run's certificate (%s)", second, first)
	}
	if s := delta2Step(); s.Seconds != 0 || !strings.HasPrefix(s.Model, "reused from the store") {
		t.Fatalf("release --estimate, the store holding sensitivity's Δ2: %+v, want 0 s reused from the store", s)
	}
	out, log := release("after-sensitivity")
	if jsonField(t, out, "sensitivityReused") != true || !strings.Contains(log, "Δ2 reused from the certificate") ||
		jsonField(t, out, "delta2") != jsonField(t, first, "delta2") {
		t.Fatalf("release after sensitivity: %s\n%s\nwant sensitivity's Δ2 reused", out, log)
	}
	if none := sens("--cache-dir", "none"); jsonField(t, none, "reused") != nil || jsonField(t, none, "method") != method {
		t.Fatalf("sensitivity --cache-dir none: %s, want computed by %s", none, method)
	}

	// The other way: a fresh store, a release first.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if s := delta2Step(); s.Seconds == 0 || strings.Contains(s.Model, "reused") {
		t.Fatalf("release --estimate on an empty store: %+v, want Δ2 priced as computed", s)
	}
	if out, _ := release("fresh"); jsonField(t, out, "sensitivityReused") != false {
		t.Fatalf("release on an empty store: %s", out)
	}
	if s := delta2Step(); s.Seconds != 0 || !strings.HasPrefix(s.Model, "reused from the store") {
		t.Fatalf("release --estimate after a release: %+v, want 0 s reused from the store", s)
	}
	if after := sens(); jsonField(t, after, "reused") != true || jsonField(t, after, "delta2") != jsonField(t, first, "delta2") {
		t.Fatalf("sensitivity after a release: %s, want the release's Δ2 reused", after)
	}
	if es, _ := os.ReadDir(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "graphcloak", "store")); len(es) == 0 {
		t.Fatal("nothing in the store")
	}
}

// TestLocateKeepsItsVerdictForecast: plain locate keeps its verdict's
// forecast in the store; locating the same release again reads it
// ("reused": true, the same forecast and verdict), and locate --estimate
// prices its trials at 0 s "reused from the store". --cache-dir none
// simulates. Before issue 73 (c) the forecast was simulated every time
// and the estimate priced it so.
func TestLocateKeepsItsVerdictForecast(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	locate := func(extra ...string) string {
		out, _ := storeCLI(t, append([]string{"locate", "--graph", "karate", "--release", rel, "--forecast-trials", "20", "-o", "json"}, extra...)...)
		return out
	}
	trials := func() *estimateStep {
		t.Helper()
		s := runEstimate(t, "locate", "--graph", "karate", "--release", rel, "--forecast-trials", "20").step("forecast trials")
		if s == nil {
			t.Fatal("locate --estimate has no forecast trials step")
		}
		return s
	}
	if s := trials(); s.Seconds == 0 || strings.Contains(s.Model, "reused") {
		t.Fatalf("locate --estimate on an empty store: %+v", s)
	}
	first := locate()
	f1, ok := jsonField(t, first, "forecast").(map[string]any)
	if !ok || f1["reused"] != nil {
		t.Fatalf("first locate: no forecast, or one reused: %s", first)
	}
	if s := trials(); s.Seconds != 0 || !strings.HasPrefix(s.Model, "reused from the store") {
		t.Fatalf("locate --estimate after a locate: %+v, want 0 s reused from the store", s)
	}
	second := locate()
	f2, _ := jsonField(t, second, "forecast").(map[string]any)
	if f2 == nil || f2["reused"] != true {
		t.Fatalf("second locate: forecast not reused: %s", second)
	}
	delete(f2, "reused")
	if a, b := fmt.Sprint(f1), fmt.Sprint(f2); a != b || jsonField(t, first, "noiseDominated") != jsonField(t, second, "noiseDominated") {
		t.Fatalf("the reused forecast or verdict differs:\n%s\n%s", a, b)
	}
	if none := locate("--cache-dir", "none"); jsonField(t, none, "forecast.reused") != nil {
		t.Fatalf("locate --cache-dir none reused the forecast: %s", none)
	}
}

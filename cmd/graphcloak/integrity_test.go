package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// writeReadings writes a karate readings CSV where node k reads f(k).
func writeReadings(t *testing.T, path string, f func(k int) float64) map[string]float64 {
	t.Helper()
	var b strings.Builder
	m := map[string]float64{}
	for k := 1; k <= 34; k++ {
		fmt.Fprintf(&b, "%d,%.9f\n", k, f(k))
		m[fmt.Sprint(k)] = f(k)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return m
}

// initLedger runs budget --init for a file ledger.
func initLedger(t *testing.T, ledger string, extra ...string) {
	t.Helper()
	args := append([]string{"budget", "--init", "--ledger", ledger, "--epsilon-total", "10", "--delta-total", "1e-5"}, extra...)
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 0 {
		t.Fatalf("budget --init: exit %d: %s", code, stderr)
	}
}

// Finding 1 of issue 8, through the CLI: two keyed releases of different
// readings with the same --key --scope --epoch, charged on two ledgers.
// Before release ids their difference was exactly the difference of the
// readings (to one grid step); now it carries the noise of two
// independent draws.
func TestKeyedReleasesOnTwoLedgersCLI(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "k.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(key, k); err != nil {
		t.Fatal(err)
	}
	a := writeReadings(t, filepath.Join(dir, "a.csv"), func(k int) float64 { return 0.01 * float64(k) })
	b := writeReadings(t, filepath.Join(dir, "b.csv"), func(k int) float64 { return 0.5 - 0.013*float64(k) })
	var rels [2]*privacy.Released
	for i, name := range []string{"a", "b"} {
		ledger := filepath.Join(dir, "L"+name+".json")
		initLedger(t, ledger)
		out := filepath.Join(dir, "r"+name+".json")
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values",
			filepath.Join(dir, name+".csv"), "--tau", "1", "--key", key, "--ledger", ledger, "--epoch", "E7", "--out", out)
		if code != 0 {
			t.Fatalf("release %s: exit %d: %s", name, code, stderr)
		}
		rel, err := privacy.ReadReleaseFile(out)
		if err != nil {
			t.Fatal(err)
		}
		rels[i] = rel
	}
	if rels[0].Meta.ReleaseID == "" || rels[0].Meta.ReleaseID == rels[1].Meta.ReleaseID {
		t.Fatalf("release ids %q and %q: want two distinct fresh ids", rels[0].Meta.ReleaseID, rels[1].Meta.ReleaseID)
	}
	gamma := math.Ldexp(1, -rels[0].Meta.GridExponent)
	far := 0
	for i, key := range rels[0].Keys {
		d := (rels[0].Values[i] - rels[1].Values[i]) - (a[key] - b[key])
		if math.Abs(d) > 2*gamma {
			far++
		}
	}
	// σ/γ ≥ 1024: a shared noise gives |d| ≤ γ everywhere; independent
	// noise gives |d| ≤ 2γ with probability < 1e-3 per node.
	if far < 30 {
		t.Errorf("only %d of 34 nodes: r1 − r2 is still the difference of the readings (noise shared)", far)
	}
}

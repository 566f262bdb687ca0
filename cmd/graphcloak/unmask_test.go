package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// A release made with a key from keygen is unmasked by the CLI to the true
// values rounded to the grid; a 0644 key file is refused.
func TestUnmaskRoundTrip(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "k.key")
	if _, code, err := runPrivacyCLI(t, "keygen", "--out", keyPath); code != 0 {
		t.Fatal(err)
	}
	key, err := privacy.LoadKey(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := privacy.CreateFileLedger(context.Background(), filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 4, Delta: 1e-6}, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"a", "b", "c", "d"}
	vals := []float64{0.5, 0.125, 1.0 / 3, 0}
	rel, err := privacy.Release(context.Background(), privacy.ReleaseRequest{Keys: keys, Values: vals, Sensitivity: 0.02,
		Epsilon: 1, Delta: 1e-6, Noise: privacy.KeyedNoise(key), Ledger: ledger, Scope: "s", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	relPath := filepath.Join(dir, "release.json")
	if err := privacy.WriteReleaseFile(relPath, rel); err != nil {
		t.Fatal(err)
	}
	out, code, err := runPrivacyCLI(t, "unmask", "--key", keyPath, "--release", relPath, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var r struct {
		GridExponent int
		Rows         []struct {
			Key             string
			Value, Released float64
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Rows) != 4 {
		t.Fatalf("%v\n%s", err, out)
	}
	gamma := math.Ldexp(1, -r.GridExponent)
	for i, row := range r.Rows {
		if row.Key != keys[i] || row.Value != math.Round(vals[i]/gamma)*gamma || row.Released != rel.Values[i] {
			t.Errorf("row %d: %+v, true %v", i, row, vals[i])
		}
	}
	os.Chmod(keyPath, 0o644)
	if _, code, err := runPrivacyCLI(t, "unmask", "--key", keyPath, "--release", relPath); code != exitBadInput {
		t.Errorf("0644 key: exit %d, %v", code, err)
	}
	if _, code, _ := runPrivacyCLI(t, "unmask", "--key", keyPath); code != exitUsage {
		t.Errorf("missing --release: exit %d", code)
	}
}

// checkUnmask takes a key and exactly one release, a file or a Neo4j run;
// anything else is a usage error.
func TestCheckUnmask(t *testing.T) {
	for _, c := range []struct {
		name string
		o    unmaskOptions
		want int
	}{
		{"file", unmaskOptions{keyFile: "k", releaseFile: "r.json"}, exitOK},
		{"neo4j run", unmaskOptions{keyFile: "k", graph: "neo4j", releaseRun: "run-1"}, exitOK},
		{"no key", unmaskOptions{releaseFile: "r.json"}, exitUsage},
		{"no release", unmaskOptions{keyFile: "k"}, exitUsage},
		{"both", unmaskOptions{keyFile: "k", releaseFile: "r.json", graph: "neo4j", releaseRun: "run-1"}, exitUsage},
		{"run without graph", unmaskOptions{keyFile: "k", releaseRun: "run-1"}, exitUsage},
		{"graph without run", unmaskOptions{keyFile: "k", graph: "neo4j"}, exitUsage},
		{"another graph", unmaskOptions{keyFile: "k", graph: "karate", releaseRun: "run-1"}, exitUsage},
	} {
		if got := exitCode(checkUnmask(&c.o)); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

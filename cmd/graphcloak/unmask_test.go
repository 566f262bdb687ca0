package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
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

// unmask with another key used to exit 0 printing garbage; the
// release records the key's fingerprint and unmask refuses another key.
func TestUnmaskRefusesOtherKey(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	k1, k2 := filepath.Join(dir, "k1"), filepath.Join(dir, "k2")
	for _, k := range []string{k1, k2} {
		if _, code, err := runPrivacyCLI(t, "keygen", "--out", k); code != 0 {
			t.Fatal(err)
		}
	}
	key, _ := privacy.LoadKey(k1)
	ledger, err := privacy.CreateFileLedger(context.Background(), filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 4, Delta: 1e-6}, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := privacy.Release(context.Background(), privacy.ReleaseRequest{Keys: []string{"a", "b"}, Values: []float64{1, 2}, Sensitivity: 0.1,
		Epsilon: 1, Delta: 1e-6, Noise: privacy.KeyedNoise(key), Ledger: ledger, Scope: "s", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Meta.KeyFingerprint != key.Fingerprint() || len(rel.Meta.KeyFingerprint) != 16 {
		t.Fatalf("key fingerprint %q", rel.Meta.KeyFingerprint)
	}
	relPath := filepath.Join(dir, "release.json")
	if err := privacy.WriteReleaseFile(relPath, rel); err != nil {
		t.Fatal(err)
	}
	if _, code, err := runPrivacyCLI(t, "unmask", "--key", k1, "--release", relPath); code != 0 {
		t.Fatalf("right key: exit %d: %v", code, err)
	}
	if _, code, err := runPrivacyCLI(t, "unmask", "--key", k2, "--release", relPath); code != exitBadInput || !strings.Contains(err.Error(), "not the one the release was made with") {
		t.Errorf("other key: exit %d, %v; want exit 3", code, err)
	}
}

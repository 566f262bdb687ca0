package privacy

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
)

// Unmasked reports every node of a keyed release in its order: the value
// without noise on the release grid beside the released value, and the
// release's names; a wrong key is refused.
func TestUnmasked(t *testing.T) {
	key, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := CreateFileLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.json"), Budget{Epsilon: 4, Delta: 1e-6}, FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	keys, vals := []string{"a", "b", "c"}, []float64{0.5, 0.125, 0}
	rel, err := Release(context.Background(), ReleaseRequest{Keys: keys, Values: vals, Sensitivity: 0.02,
		Epsilon: 1, Delta: 1e-6, Noise: KeyedNoise(key), Ledger: ledger, Scope: "s", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Unmasked(key, rel)
	if err != nil {
		t.Fatal(err)
	}
	if r.Scope != "s" || r.Epoch != "e" || r.GridExponent != rel.Meta.GridExponent || r.N != len(keys) || len(r.Rows) != len(keys) {
		t.Fatalf("report %+v", r)
	}
	grid := math.Ldexp(1, -r.GridExponent)
	for i, row := range r.Rows {
		if row.Key != keys[i] || math.Abs(row.Value-vals[i]) > grid || row.Released != rel.Values[i] {
			t.Errorf("row %d: %+v, want key %s, value %v within %g, released %v", i, row, keys[i], vals[i], grid, rel.Values[i])
		}
	}
	other, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Unmasked(other, rel); !errors.Is(err, ErrWrongKey) {
		t.Errorf("wrong key: %v", err)
	}
}

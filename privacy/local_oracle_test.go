package privacy

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/sensor"
)

// Same values, two paths (issue 58): for one epoch order, the reports of
// the order's sensors — each given only its own sensor key, node and raw
// value, through sensor.Sensor.Report — equal, bit for bit, the central
// keyed release with the master key of the same epoch and release id; and
// Unmask with the master key returns round(y·2^k)·2^−k exactly from the
// reports. The central path is Release's own code (release with the
// order's id); the local path is package sensor's.
func TestLocalReportsEqualCentralRelease(t *testing.T) {
	n := localOracleNodes(t)
	ctx := context.Background()
	master := testKey()
	keys, vals := testValues(n)
	for i := range vals {
		vals[i] = 20 + vals[i] - 0.5*float64(i%3) // some negative offsets, many magnitudes
	}
	vals[7] = -3.25e-9
	vals[8] = 0
	const sens, eps, delta = 0.05, 1, 1e-5
	cal, err := CalibrateRelease(sens, eps, delta, n, MechanismDefault)
	if err != nil {
		t.Fatal(err)
	}
	seed := sha256.Sum256([]byte("oracle coordinator"))
	coord := ed25519.NewKeyFromSeed(seed[:])
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	order := sensor.Order{Version: 1, Kind: sensor.OrderKind, Graph: sensor.OrderGraph{NodeCount: n, SHA256: strings.Repeat("1", 64)},
		Tau: 1, Alpha: 1, Epsilon: eps, Delta: delta, Sensitivity: sens, EffectiveSensitivity: cal.EffectiveSensitivity, Rho: cal.Rho,
		Sampler:   sensor.Sampler{Version: 3, GridExponent: cal.GridExponent, GridVariance: cal.GridVariance, Sigma: cal.Sigma},
		ReleaseID: NewReleaseID(), Scope: "building-7", Epoch: "2026-11-27T06", NotBefore: t0, NotAfter: t0.Add(time.Hour),
		Nodes: keys, KeyFingerprint: master.Fingerprint()}
	env, err := sensor.SignOrder(coord, order)
	if err != nil {
		t.Fatal(err)
	}

	// Local path: one sensor per node, each with its own key only.
	dir := t.TempDir()
	local := &Released{Keys: keys, Grid: make([]int64, n), Values: make([]float64, n)}
	for i, node := range keys {
		s := &sensor.Sensor{Coordinator: coord.Public().(ed25519.PublicKey), Node: node, Key: sensor.Key(sensor.SensorKey(master, node)),
			Policy:   sensor.Policy{Alpha: 1, SigmaFloor: 1e-3, MaxEpsilonPerDay: 1e6},
			Odometer: filepath.Join(dir, fmt.Sprint(i)), Now: func() time.Time { return t0.Add(time.Minute) }}
		if err := sensor.InitOdometer(s.Odometer, node, t0, false); err != nil {
			t.Fatal(err)
		}
		rep, err := s.Report(env, vals[i])
		if err != nil {
			t.Fatal(err)
		}
		local.Grid[i], local.Values[i] = rep.Grid, rep.Value
	}

	// Central path: Release with the master key, the same epoch and id.
	l, _ := newTestLedger(t)
	central, err := release(ctx, ReleaseRequest{Keys: keys, Values: vals, Sensitivity: sens, Epsilon: eps, Delta: delta,
		Noise: KeyedNoise(master), Ledger: l, Scope: order.Scope, Epoch: order.Epoch}, order.ReleaseID)
	if err != nil {
		t.Fatal(err)
	}
	m := central.Meta
	if m.SamplerVersion != 3 || m.GridExponent != order.Sampler.GridExponent || m.GridVariance != order.Sampler.GridVariance || m.ReleaseID != order.ReleaseID {
		t.Fatalf("central meta %+v does not match the order's sampler", m)
	}
	for i := range keys {
		if local.Grid[i] != central.Grid[i] || math.Float64bits(local.Values[i]) != math.Float64bits(central.Values[i]) {
			t.Fatalf("node %s: local grid %d value %v, central grid %d value %v", keys[i], local.Grid[i], local.Values[i], central.Grid[i], central.Values[i])
		}
	}

	// The key holder unmasks the local release (assembled as the collector
	// does) exactly.
	local.Meta = m
	local.Meta.N = n
	got, err := Unmask(master, local)
	if err != nil {
		t.Fatal(err)
	}
	k := m.GridExponent
	for i := range got {
		if want := math.Ldexp(math.Round(math.Ldexp(vals[i], k)), -k); got[i] != want {
			t.Fatalf("node %s: unmasked %v, want %v", keys[i], got[i], want)
		}
	}

	// Controls: the noise is not zero, and another release id or another
	// node's sensor key gives other values (the oracle can fail).
	same := 0
	for i := range keys {
		if central.Grid[i] == int64(math.Round(math.Ldexp(vals[i], k))) {
			same++
		}
	}
	if same > n/50 {
		t.Errorf("%d of %d values carry no noise", same, n)
	}
	l2, _ := newTestLedger(t)
	other, err := release(ctx, ReleaseRequest{Keys: keys, Values: vals, Sensitivity: sens, Epsilon: eps, Delta: delta,
		Noise: KeyedNoise(master), Ledger: l2, Scope: order.Scope, Epoch: order.Epoch}, NewReleaseID())
	if err != nil {
		t.Fatal(err)
	}
	equal := 0
	for i := range keys {
		if other.Grid[i] == local.Grid[i] {
			equal++
		}
	}
	if equal > n/50 {
		t.Errorf("another release id reproduced %d of %d grids", equal, n)
	}
	// The same epoch again is refused by the ledger before any draw: the
	// id cannot be reused for other values.
	if _, err := release(ctx, ReleaseRequest{Keys: keys, Values: vals, Sensitivity: sens, Epsilon: eps, Delta: delta,
		Noise: KeyedNoise(master), Ledger: l, Scope: order.Scope, Epoch: order.Epoch}, order.ReleaseID); !errors.Is(err, ErrAlreadyCharged) {
		t.Errorf("second release of the epoch: %v", err)
	}
	// A malformed id is refused before the charge.
	l3, _ := newTestLedger(t)
	if _, err := release(ctx, ReleaseRequest{Keys: keys, Values: vals, Sensitivity: sens, Epsilon: eps, Delta: delta,
		Noise: KeyedNoise(master), Ledger: l3, Scope: order.Scope, Epoch: "e2"}, "rel-short"); err == nil {
		t.Error("a malformed release id was accepted")
	}
	if _, err := release(ctx, ReleaseRequest{Keys: keys, Values: vals, Sensitivity: sens, Epsilon: eps, Delta: delta,
		Noise: KeyedNoise(master), Ledger: l3, Scope: order.Scope, Epoch: "e2"}, ""); err != nil {
		t.Errorf("the refused id charged the ledger: %v", err)
	}
}

// localOracleNodes is the number of sensors TestLocalReportsEqualCentralRelease
// runs: 300, or GRAPHCLOAK_LOCAL_ORACLE_NODES (4941 is every node of the
// power grid: GRAPHCLOAK_LOCAL_ORACLE_NODES=4941 go test ./privacy -run
// TestLocalReportsEqualCentralRelease).
func localOracleNodes(t *testing.T) int {
	v := os.Getenv("GRAPHCLOAK_LOCAL_ORACLE_NODES")
	if v == "" {
		return 300
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 50 {
		t.Fatalf("GRAPHCLOAK_LOCAL_ORACLE_NODES=%q: want an integer ≥ 50", v)
	}
	return n
}

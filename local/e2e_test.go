package local

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/keyednoise"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// TestSensorsToReleaseBitForBit is the oracle that ties the local path to
// the central one: N sensors, each given only its own sensor key, node and
// raw value, report to a collector; the closed epoch's grid integers equal
// those of a central keyed release of the same order with the master key
// (round(y·2^k) + Z, Z from keyednoise.Fill: what privacy.Release draws
// for sampler version 3), and privacy.Unmask with the master key returns
// the raw readings rounded to the grid exactly.
func TestSensorsToReleaseBitForBit(t *testing.T) {
	ctx := context.Background()
	var master privacy.Key
	copy(master[:], []byte("a fixed master key for this test"))
	const n = 40
	nodes := make([]string, n)
	readings := make([]float64, n)
	macKeys := map[string][]byte{}
	for i := range nodes {
		nodes[i] = fmt.Sprintf("room-%02d", i)
		readings[i] = math.Sin(float64(i)*1.7)*3 + 0.123456789*float64(i) // any finite readings
		ks := sensor.SensorKey(master, nodes[i])
		macKeys[nodes[i]] = sensor.ReportMACKey(ks)
	}
	cal, err := privacy.CalibrateRelease(0.37, 1, 1e-6, n, privacy.MechanismDefault)
	if err != nil {
		t.Fatal(err)
	}
	want := testOrder(nodes)
	want.Epsilon, want.Delta, want.Sensitivity = 1, 1e-6, 0.37
	want.EffectiveSensitivity, want.Rho = cal.EffectiveSensitivity, cal.Rho
	want.Sampler = Sampler{Version: 3, GridExponent: cal.GridExponent, GridVariance: cal.GridVariance, Sigma: cal.Sigma}
	out := filepath.Join(t.TempDir(), "order.json")
	signer := testSigner(9)
	opened, err := OpenEpoch(ctx, OpenRequest{Order: want, Out: out, Signer: signer, Ledger: testLedger(t, 10)})
	if err != nil {
		t.Fatal(err)
	}
	o := opened.Order
	c := openTest(t, o, macKeys, t.TempDir(), &clock{t0})
	defer c.Close()
	var lines [][]byte
	for i, node := range nodes {
		s := sensor.Sensor{Coordinator: signer.Public().(ed25519.PublicKey), Node: node, Policy: sensor.Policy{Alpha: 1, SigmaFloor: 1e-3, MaxEpsilonPerDay: 1e6},
			Key: sensor.Key(sensor.SensorKey(master, node)), Odometer: filepath.Join(t.TempDir(), "odometer"), Now: (&clock{t0}).now}
		if err := sensor.InitOdometer(s.Odometer, node, t0, false); err != nil {
			t.Fatal(err)
		}
		rep, err := s.Report(opened.Envelope, readings[i])
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line(t, rep))
	}
	for _, r := range c.Submit(lines, 1) {
		if r.Reason != Accepted {
			t.Fatalf("report refused: %+v", r)
		}
	}
	rel, err := c.CloseEpoch("test")
	if err != nil {
		t.Fatal(err)
	}
	// The central release of the same order, with the master key.
	k := o.Sampler.GridExponent
	z := make([]int64, n)
	m := [32]byte(master)
	if err := keyednoise.Fill(&m, keyednoise.Params{Version: 3, ReleaseID: o.ReleaseID, Scope: o.Scope, Epoch: o.Epoch,
		GridVariance: o.Sampler.GridVariance, GridExponent: k}, nodes, z); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		q := int64(math.Round(math.Ldexp(readings[i], k)))
		if rel.Keys[i] != nodes[i] || rel.Grid[i] != q+z[i] {
			t.Errorf("%s: collected grid %d, central %d", nodes[i], rel.Grid[i], q+z[i])
		}
	}
	back, err := privacy.Unmask(master, rel)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range back {
		if want := math.Ldexp(math.Round(math.Ldexp(readings[i], k)), -k); v != want {
			t.Errorf("%s: unmasked %v, want %v", nodes[i], v, want)
		}
	}
}

package keyednoise

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"testing"
)

func lp(s string) string {
	return string(binary.BigEndian.AppendUint32(nil, uint32(len(s)))) + s
}

// SensorKey is RFC 5869 HKDF with the documented salt and info, built
// here from crypto/hkdf directly.
func TestSensorKeyMatchesHKDF(t *testing.T) {
	var m [KeySize]byte
	for i := range m {
		m[i] = byte(7*i + 3)
	}
	seen := map[[KeySize]byte]string{}
	for _, node := range []string{"n1", "", "n2", "a much longer node key with spaces and ünïcode"} {
		want, err := hkdf.Key(sha256.New, m[:], []byte("graphcloak/sensor/salt/v1"), "graphcloak/sensor-key/v1"+lp(node), 32)
		if err != nil {
			t.Fatal(err)
		}
		got := SensorKey(&m, node)
		if !bytes.Equal(got[:], want) {
			t.Fatalf("node %q: SensorKey = %x, HKDF = %x", node, got, want)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("nodes %q and %q share a sensor key", node, other)
		}
		seen[got] = node
	}
}

// Version 3 from the master key (what a central release draws) equals
// version 3 from each node's sensor key (what a sensor draws), and both
// equal HKDF built from crypto/hkdf with the documented info.
func TestVersion3MasterEqualsSensor(t *testing.T) {
	var m [KeySize]byte
	copy(m[:], "version 3 master key")
	p := Params{Version: Version3, ReleaseID: "rel-00112233445566778899aabbccddeeff", Scope: "building-7",
		Epoch: "2026-11-27", GridVariance: 1<<40 + 12345, GridExponent: -3}
	central, err := NewDeriver(&m, p)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []string{"n1", "n2", "", "node-42", "n1"}
	z := make([]int64, len(nodes))
	if err := Fill(&m, p, nodes, z); err != nil {
		t.Fatal(err)
	}
	for i, node := range nodes {
		ks := SensorKey(&m, node)
		local, err := NewSensorDeriver(&ks, p)
		if err != nil {
			t.Fatal(err)
		}
		info := "graphcloak/noise/v3" + lp(p.ReleaseID) + lp(p.Scope) + lp(p.Epoch) +
			string(binary.BigEndian.AppendUint32(nil, 3)) + string(binary.BigEndian.AppendUint64(nil, p.GridVariance)) +
			string(binary.BigEndian.AppendUint32(nil, uint32(0xfffffffd))) + lp(node) + "\x00\x00\x00\x00"
		want, _ := hkdf.Key(sha256.New, ks[:], []byte("graphcloak/noise/salt/v1"), info, 32)
		if got := central.Derive(node, 0); !bytes.Equal(got, want) {
			t.Fatalf("node %q: central derive %x, HKDF %x", node, got, want)
		}
		if got := local.Derive(node, 0); !bytes.Equal(got, want) {
			t.Fatalf("node %q: sensor derive %x, HKDF %x", node, got, want)
		}
		zs, err := SensorNoise(&ks, p, node)
		if err != nil || zs != z[i] {
			t.Fatalf("node %q: SensorNoise %d (%v), Fill %d", node, zs, err, z[i])
		}
	}
	if z[0] != z[4] {
		t.Error("one node drew two noises")
	}
	// Another node's sensor key gives another value key.
	ks := SensorKey(&m, "n2")
	wrong, _ := NewSensorDeriver(&ks, p)
	if bytes.Equal(wrong.Derive("n1", 0), central.Derive("n1", 0)) {
		t.Error("n2's sensor key derives n1's value key")
	}
}

func TestParamsRefused(t *testing.T) {
	var k [KeySize]byte
	for _, p := range []Params{{Version: 0, GridVariance: 1}, {Version: 4, GridVariance: 1}, {Version: 3, GridVariance: 0}, {Version: 3, GridVariance: MaxGridVariance + 1}} {
		if err := Fill(&k, p, []string{"a"}, make([]int64, 1)); err == nil {
			t.Errorf("%+v: Fill accepted", p)
		}
		if _, err := SensorNoise(&k, p, "a"); err == nil {
			t.Errorf("%+v: SensorNoise accepted", p)
		}
	}
	if _, err := NewSensorDeriver(&k, Params{Version: 2, GridVariance: 1}); err == nil {
		t.Error("a sensor key derived version 2")
	}
}

func ExampleSensorNoise() {
	var master [KeySize]byte // all zero: an example, never a real key
	p := Params{Version: Version3, ReleaseID: "rel-00000000000000000000000000000000", Scope: "s", Epoch: "e",
		GridVariance: 1 << 20, GridExponent: 10}
	ks := SensorKey(&master, "n1")
	z, _ := SensorNoise(&ks, p, "n1")
	all := make([]int64, 1)
	Fill(&master, p, []string{"n1"}, all)
	fmt.Println(z == all[0])
	// Output: true
}

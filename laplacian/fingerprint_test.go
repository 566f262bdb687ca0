package laplacian

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func mustGraph(t *testing.T, n int, keys []string, edges []Edge) *Graph {
	t.Helper()
	g, err := FromEdges(n, keys, edges, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFingerprintEncoding checks the hash against the documented encoding
// written out byte by byte for a small weighted graph.
func TestFingerprintEncoding(t *testing.T) {
	keys := []string{"a", "bb", "ccc"}
	g := mustGraph(t, 3, keys, []Edge{{2, 0, 0.5}, {0, 1, 1}})
	var b bytes.Buffer
	b.WriteString("graphcloak/graph-fingerprint/v1\x00")
	u64 := func(x uint64) { binary.Write(&b, binary.BigEndian, x) }
	u32 := func(x uint32) { binary.Write(&b, binary.BigEndian, x) }
	u64(3)
	u64(2)
	for _, k := range keys {
		u64(uint64(len(k)))
		b.WriteString(k)
	}
	u32(0)
	u32(1)
	u64(math.Float64bits(1))
	u32(0)
	u32(2)
	u64(math.Float64bits(0.5))
	sum := sha256.Sum256(b.Bytes())
	want := Fingerprint{Nodes: 3, Edges: 2, SHA256: hex.EncodeToString(sum[:])}
	if got := g.Fingerprint(); got != want {
		t.Fatalf("fingerprint %v, want %v", got, want)
	}
	if d := g.Fingerprint().Diff(want); d != "" {
		t.Fatalf("Diff of equal fingerprints = %q", d)
	}
}

// TestFingerprintDefaultKeys: a generated graph hashes its decimal keys,
// the same as the graph with those keys spelled out.
func TestFingerprintDefaultKeys(t *testing.T) {
	p, err := Path(12)
	if err != nil {
		t.Fatal(err)
	}
	keys := p.Keys()
	var edges []Edge
	p.ForEachEdge(func(i, j int, w float64) { edges = append(edges, Edge{int32(j), int32(i), w}) })
	q := mustGraph(t, 12, append([]string(nil), keys...), edges)
	if p.Fingerprint() != q.Fingerprint() {
		t.Fatalf("default keys %v vs explicit %v", p.Fingerprint(), q.Fingerprint())
	}
}

// TestFingerprintSensitive: every single change of a key, the key order,
// an edge, or a weight (even one ulp) changes the fingerprint; the edge
// input order does not.
func TestFingerprintSensitive(t *testing.T) {
	keys := []string{"n0", "n1", "n2", "n3", "n4"}
	edges := []Edge{{0, 1, 1}, {1, 2, 2.5}, {2, 3, 1e-3}, {3, 4, 1e3}, {0, 4, 1}}
	base := mustGraph(t, 5, keys, edges).Fingerprint()

	rev := make([]Edge, len(edges))
	for i, e := range edges {
		rev[len(edges)-1-i] = Edge{e.V, e.U, e.Weight}
	}
	if got := mustGraph(t, 5, keys, rev).Fingerprint(); got != base {
		t.Fatalf("edge input order changed the fingerprint: %v vs %v", got, base)
	}

	variants := map[string]*Graph{}
	k2 := append([]string(nil), keys...)
	k2[3] = "n3x"
	variants["key renamed"] = mustGraph(t, 5, k2, edges)
	k3 := append([]string(nil), keys...)
	k3[0], k3[1] = k3[1], k3[0]
	variants["keys swapped"] = mustGraph(t, 5, k3, edges)
	k4 := []string{"n", "0n1", "n2", "n3", "n4"} // same concatenation as n0n1…
	variants["key boundary moved"] = mustGraph(t, 5, k4, edges)
	e2 := append([]Edge(nil), edges...)
	e2[1].Weight = math.Nextafter(2.5, 3)
	variants["weight one ulp"] = mustGraph(t, 5, keys, e2)
	e3 := append([]Edge(nil), edges...)
	e3[4] = Edge{0, 3, 1}
	variants["edge moved"] = mustGraph(t, 5, keys, e3)
	variants["edge removed"] = mustGraph(t, 5, keys, edges[:4])
	variants["node added"] = mustGraph(t, 6, append(append([]string(nil), keys...), "n5"), edges)

	seen := map[string]string{base.SHA256: "base"}
	for name, g := range variants {
		f := g.Fingerprint()
		if prev, dup := seen[f.SHA256]; dup {
			t.Errorf("%s: same hash as %s", name, prev)
		}
		seen[f.SHA256] = name
		if f.Diff(base) == "" {
			t.Errorf("%s: Diff reports no difference", name)
		}
	}
	if d := variants["node added"].Fingerprint().Diff(base); !strings.Contains(d, "6 nodes, expected 5") {
		t.Errorf("node-count diff = %q", d)
	}
	if d := variants["edge removed"].Fingerprint().Diff(base); !strings.Contains(d, "4 edges, expected 5") {
		t.Errorf("edge-count diff = %q", d)
	}
	if d := variants["weight one ulp"].Fingerprint().Diff(base); !strings.Contains(d, "different keys, edges or weights") {
		t.Errorf("hash diff = %q", d)
	}
}

// TestFingerprintLongKey exercises keys longer than the hashing buffer.
func TestFingerprintLongKey(t *testing.T) {
	long := strings.Repeat("k", 100000)
	a := mustGraph(t, 2, []string{long, "b"}, []Edge{{0, 1, 1}}).Fingerprint()
	b := mustGraph(t, 2, []string{long + "x", "b"}, []Edge{{0, 1, 1}}).Fingerprint()
	if a == b {
		t.Fatal("long keys differing in the last byte hash the same")
	}
}

// Fingerprints round-trip through JSON under the contract's names, and
// the names of files written before it still read.
func TestFingerprintJSON(t *testing.T) {
	g, _ := Karate()
	fp := g.Fingerprint()
	data, err := json.Marshal(fp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"nodeCount":34`) || !strings.Contains(string(data), `"relationshipCount":78`) {
		t.Errorf("JSON %s", data)
	}
	var back Fingerprint
	if err := json.Unmarshal(data, &back); err != nil || back != fp {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	old := fmt.Sprintf(`{"nodes":34,"edges":78,"sha256":%q}`, fp.SHA256)
	if err := json.Unmarshal([]byte(old), &back); err != nil || back != fp {
		t.Errorf("old names: %+v, %v", back, err)
	}
	for _, bad := range []string{`{"nodes":34,"nodeCount":34,"edges":78,"sha256":"x"}`, `{"edges":78,"sha256":"x"}`, `{"nodeCount":1,"relationshipCount":0,"sha256":"x","extra":1}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

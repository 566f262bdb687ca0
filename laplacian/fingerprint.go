package laplacian

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Fingerprint identifies a graph exactly: the SHA-256 of a canonical
// encoding of its node keys in index order, its edges and their weights,
// together with the node and edge counts for a readable first check.
//
// Two graphs have the same fingerprint when they have the same keys in the
// same order and the same edges with bit-identical weights (after duplicate
// merging, which is part of what the graph is); any change of a key, the
// key order, an edge or a weight changes it. It depends on nothing else (not
// on how the graph was loaded, the edge input order, or the process), so a
// Δ2 certificate or a release's provenance can name the graph it was made
// for and be checked against the graph at hand.
//
// The encoding (version 1) is, with integers big-endian:
//
//	"graphcloak/graph-fingerprint/v1\x00" u64(n) u64(|E|)
//	for each node i:         u64(len(key_i)) key_i
//	for each edge i < j (increasing (i, j) order):
//	                         u32(i) u32(j) u64(float64 bits of w_ij)
type Fingerprint struct {
	Nodes  int    `json:"nodeCount"`
	Edges  int    `json:"relationshipCount"`
	SHA256 string `json:"sha256"` // 64 lowercase hex digits
}

// UnmarshalJSON reads a fingerprint, also under the names that release
// files and certificates used before the JSON contract ("nodes",
// "edges"), so files written then still verify. Unknown fields are errors.
func (f *Fingerprint) UnmarshalJSON(b []byte) error {
	var v struct {
		NodeCount         *int   `json:"nodeCount"`
		RelationshipCount *int   `json:"relationshipCount"`
		Nodes             *int   `json:"nodes"`
		Edges             *int   `json:"edges"`
		SHA256            string `json:"sha256"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("graph fingerprint: %w", err)
	}
	pick := func(now, before *int, name string) (int, error) {
		switch {
		case now != nil && before != nil:
			return 0, fmt.Errorf("graph fingerprint: both %s and its old name", name)
		case now != nil:
			return *now, nil
		case before != nil:
			return *before, nil
		}
		return 0, fmt.Errorf("graph fingerprint: %s is missing", name)
	}
	n, err := pick(v.NodeCount, v.Nodes, "nodeCount")
	if err != nil {
		return err
	}
	m, err := pick(v.RelationshipCount, v.Edges, "relationshipCount")
	if err != nil {
		return err
	}
	*f = Fingerprint{Nodes: n, Edges: m, SHA256: v.SHA256}
	return nil
}

// fingerprintDomain separates this hash from any other use of SHA-256.
const fingerprintDomain = "graphcloak/graph-fingerprint/v1\x00"

// Fingerprint computes g's fingerprint in O(n + |E|) time and constant
// extra memory (keys of generated graphs are not materialised).
func (g *Graph) Fingerprint() Fingerprint {
	h := sha256.New()
	buf := make([]byte, 0, 1<<16)
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	buf = append(buf, fingerprintDomain...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(g.n))
	buf = binary.BigEndian.AppendUint64(buf, uint64(g.edges))
	var num [20]byte
	for i := 0; i < g.n; i++ {
		var key []byte
		if g.custom {
			key = []byte(g.keys[i])
		} else {
			key = strconv.AppendInt(num[:0], int64(i), 10)
		}
		if len(buf)+8+len(key) > cap(buf) {
			flush()
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(key)))
		if len(key) > cap(buf) {
			h.Write(buf)
			h.Write(key)
			buf = buf[:0]
			continue
		}
		buf = append(buf, key...)
	}
	g.ForEachEdge(func(i, j int, w float64) {
		if len(buf)+16 > cap(buf) {
			flush()
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(i))
		buf = binary.BigEndian.AppendUint32(buf, uint32(j))
		buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(w))
	})
	flush()
	return Fingerprint{Nodes: g.n, Edges: g.edges, SHA256: hex.EncodeToString(h.Sum(nil))}
}

// String renders the fingerprint as "n=…,m=…,sha256:…".
func (f Fingerprint) String() string {
	return fmt.Sprintf("n=%d,m=%d,sha256:%s", f.Nodes, f.Edges, f.SHA256)
}

// Diff describes how f differs from want ("" when they are equal), naming
// the node count, the edge count, or else the hash (same counts, other
// keys, edges or weights). It is meant for error messages.
func (f Fingerprint) Diff(want Fingerprint) string {
	var d []string
	if f.Nodes != want.Nodes {
		d = append(d, fmt.Sprintf("%d nodes, expected %d", f.Nodes, want.Nodes))
	}
	if f.Edges != want.Edges {
		d = append(d, fmt.Sprintf("%d edges, expected %d", f.Edges, want.Edges))
	}
	if len(d) == 0 && !strings.EqualFold(f.SHA256, want.SHA256) {
		d = append(d, fmt.Sprintf("same counts but different keys, edges or weights (sha256 %.12s…, expected %.12s…)", f.SHA256, want.SHA256))
	}
	return strings.Join(d, "; ")
}

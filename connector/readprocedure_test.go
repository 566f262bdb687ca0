package connector

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// packed encodes edges as graphcloak.read does: int32 start, int32 end and,
// when weights is not nil, a float64 weight, little-endian.
func packed(pairs [][2]int32, weights []float64) []byte {
	var b []byte
	for k, p := range pairs {
		b = binary.LittleEndian.AppendUint32(b, uint32(p[0]))
		b = binary.LittleEndian.AppendUint32(b, uint32(p[1]))
		if weights != nil {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(weights[k]))
		}
	}
	return b
}

func newRelRows(n int, weighted bool) *relRows {
	nd := &nodeData{elementIDs: make([]string, n)}
	return &relRows{nd: nd, weighted: weighted, rd: &relData{}}
}

// TestAddPacked checks the decoding of the plugin's edge chunks: edges kept
// with their weights and in order across chunks, self-loops kept for FromEdges to skip and count, every relationship
// counted, and weights that are missing (NaN), not positive or infinite
// counted as bad (for the Cypher read to name) rather than kept.
func TestAddPacked(t *testing.T) {
	r := newRelRows(4, true)
	pairs := [][2]int32{{0, 1}, {2, 2}, {3, 0}, {1, 2}, {1, 3}, {2, 3}, {0, 2}}
	ws := []float64{0.5, 1, 2.25, math.NaN(), -1, math.Inf(1), 0}
	if err := r.addPacked(packed(pairs, ws)); err != nil {
		t.Fatal(err)
	}
	// A second chunk: the edges of both come out in order.
	if err := r.addPacked(packed([][2]int32{{2, 1}}, []float64{4})); err != nil {
		t.Fatal(err)
	}
	edges := r.joined()
	if r.rd.count != 8 || r.badW.count != 4 || len(edges) != 4 {
		t.Fatalf("count %d, bad weights %d, edges %d: want 8, 4, 4", r.rd.count, r.badW.count, len(edges))
	}
	if e := edges[1]; e.U != 2 || e.V != 2 || e.Weight != 1 {
		t.Fatalf("second edge %+v, want the loop {2 2 1}", e)
	}
	if e := edges[2]; e.U != 3 || e.V != 0 || e.Weight != 2.25 {
		t.Fatalf("third edge %+v, want {3 0 2.25}", e)
	}
	if e := edges[3]; e.U != 2 || e.V != 1 || e.Weight != 4 {
		t.Fatalf("fourth edge %+v, want {2 1 4}", e)
	}

	u := newRelRows(3, false)
	if err := u.addPacked(packed([][2]int32{{0, 1}, {1, 2}}, nil)); err != nil {
		t.Fatal(err)
	}
	if e := u.joined(); len(e) != 2 || e[0].Weight != 1 || e[1].Weight != 1 {
		t.Fatalf("unweighted edges %+v, want two of weight 1", e)
	}
}

// TestAddPackedMalformed checks that a chunk that cannot be what the plugin
// sends is an error naming the problem, not a silently wrong graph.
func TestAddPackedMalformed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		b        []byte
		weighted bool
		want     string
	}{
		{"truncated", packed([][2]int32{{0, 1}}, []float64{1})[:12], true, "not a multiple of 16"},
		{"unweighted width", packed([][2]int32{{0, 1}}, nil)[:7], false, "not a multiple of 8"},
		{"end past the nodes", packed([][2]int32{{0, 3}}, nil), false, "outside the 3 nodes"},
		{"negative start", packed([][2]int32{{-1, 0}}, nil), false, "outside the 3 nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := newRelRows(3, tc.weighted).addPacked(tc.b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

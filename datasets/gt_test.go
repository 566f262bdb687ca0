package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

// gtWriter encodes a .gt file by following graph-tool's format
// description, independently of the reader.
type gtWriter struct {
	b     bytes.Buffer
	order binary.ByteOrder
}

func (w *gtWriter) put(v any) { binary.Write(&w.b, w.order, v) }
func (w *gtWriter) str(s string) {
	w.put(uint64(len(s)))
	w.b.WriteString(s)
}

type testProp struct {
	kind  uint8
	name  string
	vtype uint8
	enc   func(w *gtWriter) // writes all values
}

func encodeGT(bigEndian, directed bool, n int, adj [][]int, props []testProp) []byte {
	w := &gtWriter{order: binary.LittleEndian}
	if bigEndian {
		w.order = binary.BigEndian
	}
	w.b.Write([]byte("⛾ gt"))
	w.b.WriteByte(1)
	if bigEndian {
		w.b.WriteByte(1)
	} else {
		w.b.WriteByte(0)
	}
	w.str("hand-made test graph")
	if directed {
		w.b.WriteByte(1)
	} else {
		w.b.WriteByte(0)
	}
	w.put(uint64(n))
	for v := 0; v < n; v++ {
		w.put(uint64(len(adj[v])))
		for _, u := range adj[v] {
			switch {
			case n <= 255:
				w.put(uint8(u))
			case n <= 65535:
				w.put(uint16(u))
			default:
				w.put(uint32(u))
			}
		}
	}
	w.put(uint64(len(props)))
	for _, p := range props {
		w.b.WriteByte(p.kind)
		w.str(p.name)
		w.b.WriteByte(p.vtype)
		p.enc(w)
	}
	return w.b.Bytes()
}

// x87 80-bit encodings (little-endian, padded to 16 bytes) of 1.5 and −0.25.
var ld15 = []byte{0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x3f, 0, 0, 0, 0, 0, 0}
var ldm025 = []byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0xfd, 0xbf, 0, 0, 0, 0, 0, 0}

func TestReadGTRoundTrip(t *testing.T) {
	// 4 vertices: 0→1, 0→2, 2→3, 3→3 (a self-loop), 1→0 (repeat of 0–1).
	adj := [][]int{{1, 2}, {0}, {3}, {3}}
	props := []testProp{
		{0, "description", 6, func(w *gtWriter) { w.str("tiny") }},
		{1, "value", 2, func(w *gtWriter) {
			for _, x := range []int32{7, -1, 0, 1 << 30} {
				w.put(x)
			}
		}},
		{1, "label", 6, func(w *gtWriter) {
			for _, s := range []string{"a", "", "ccc", "δ"} {
				w.str(s)
			}
		}},
		{1, "pos", 11, func(w *gtWriter) {
			for i := 0; i < 4; i++ {
				w.put(uint64(2))
				w.put(float64(i))
				w.put(-float64(i) / 3)
			}
		}},
		{1, "flag", 0, func(w *gtWriter) { w.b.Write([]byte{1, 0, 0, 1}) }},
		{2, "weight", 4, func(w *gtWriter) {
			for _, x := range []float64{0.5, 1e-3, 1e3, math.Inf(1), 2} {
				w.put(x)
			}
		}},
		{2, "i16", 1, func(w *gtWriter) {
			for _, x := range []int16{-3, 4, 5, 6, 7} {
				w.put(x)
			}
		}},
		{2, "i64", 3, func(w *gtWriter) {
			for _, x := range []int64{-1 << 40, 1, 2, 3, 4} {
				w.put(x)
			}
		}},
		{0, "ld", 5, func(w *gtWriter) { w.b.Write(ld15) }},
		{0, "vld", 12, func(w *gtWriter) { w.put(uint64(2)); w.b.Write(ld15); w.b.Write(ldm025) }},
		{0, "vs", 13, func(w *gtWriter) { w.put(uint64(2)); w.str("x"); w.str("yz") }},
		{0, "vb", 7, func(w *gtWriter) { w.put(uint64(3)); w.b.Write([]byte{1, 0, 1}) }},
		{0, "vi16", 8, func(w *gtWriter) { w.put(uint64(1)); w.put(int16(-2)) }},
		{0, "vi32", 9, func(w *gtWriter) { w.put(uint64(1)); w.put(int32(-3)) }},
		{0, "vi64", 10, func(w *gtWriter) { w.put(uint64(0)) }},
		{0, "py", 14, func(w *gtWriter) { w.str("pickle") }},
	}
	for _, be := range []bool{false, true} {
		for _, gz := range []bool{false, true} {
			raw := encodeGT(be, true, 4, adj, props)
			if be { // long doubles: big-endian platforms pad at the front
				raw = bytes.ReplaceAll(raw, ld15, beLD(ld15))
				raw = bytes.ReplaceAll(raw, ldm025, beLD(ldm025))
			}
			if gz {
				var z bytes.Buffer
				zw := gzip.NewWriter(&z)
				zw.Write(raw)
				zw.Close()
				raw = z.Bytes()
			}
			g, err := ReadGT(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("be=%v gz=%v: %v", be, gz, err)
			}
			if g.Comment != "hand-made test graph" || !g.Directed || g.N != 4 {
				t.Fatalf("header: %q %v %d", g.Comment, g.Directed, g.N)
			}
			wantEdges := [][2]int{{0, 1}, {0, 2}, {1, 0}, {2, 3}, {3, 3}}
			if !reflect.DeepEqual(g.Edges, wantEdges) {
				t.Fatalf("edges %v, want %v", g.Edges, wantEdges)
			}
			check := func(m map[string]Property, name string, want ...any) {
				t.Helper()
				p, ok := m[name]
				if !ok {
					t.Fatalf("no property %q", name)
				}
				if !reflect.DeepEqual(p.Values, want) {
					t.Errorf("be=%v %s = %#v, want %#v", be, name, p.Values, want)
				}
			}
			check(g.GraphProps, "description", "tiny")
			check(g.VertexProps, "value", int32(7), int32(-1), int32(0), int32(1<<30))
			check(g.VertexProps, "label", "a", "", "ccc", "δ")
			check(g.VertexProps, "pos", []float64{0, 0}, []float64{1, -1.0 / 3}, []float64{2, -2.0 / 3}, []float64{3, -1})
			check(g.VertexProps, "flag", true, false, false, true)
			check(g.EdgeProps, "weight", 0.5, 1e-3, 1e3, math.Inf(1), 2.0)
			check(g.EdgeProps, "i16", int16(-3), int16(4), int16(5), int16(6), int16(7))
			check(g.EdgeProps, "i64", int64(-1<<40), int64(1), int64(2), int64(3), int64(4))
			check(g.GraphProps, "ld", 1.5)
			check(g.GraphProps, "vld", []float64{1.5, -0.25})
			check(g.GraphProps, "vs", []string{"x", "yz"})
			check(g.GraphProps, "vb", []bool{true, false, true})
			check(g.GraphProps, "vi16", []int16{-2})
			check(g.GraphProps, "vi32", []int32{-3})
			check(g.GraphProps, "vi64", []int64{})
			check(g.GraphProps, "py", "pickle")

			labels, err := g.Labels("value")
			if err != nil || !reflect.DeepEqual(labels, []string{"7", "-1", "0", "1073741824"}) {
				t.Errorf("labels %v, %v", labels, err)
			}
			lg, st, err := g.Graph()
			if err != nil {
				t.Fatal(err)
			}
			if lg.NumEdges() != 3 || st.SelfLoops != 1 || st.Duplicates != 1 || lg.EdgeWeight(0, 1) != 1 {
				t.Errorf("simple graph: m = %d, %+v, w01 = %v", lg.NumEdges(), st, lg.EdgeWeight(0, 1))
			}
			// The structure alone: the same header and edges, read past every
			// kind of value to the file's end (trailing data is still refused),
			// and no property kept.
			sg, err := ReadGTStructure(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("structure, be=%v gz=%v: %v", be, gz, err)
			}
			if sg.Comment != g.Comment || sg.Directed != g.Directed || sg.N != g.N || !reflect.DeepEqual(sg.Edges, g.Edges) {
				t.Errorf("structure: %q %v %d %v", sg.Comment, sg.Directed, sg.N, sg.Edges)
			}
			if n := len(sg.GraphProps) + len(sg.VertexProps) + len(sg.EdgeProps); n != 0 {
				t.Errorf("structure kept %d properties", n)
			}
		}
	}
}

func beLD(le []byte) []byte {
	out := make([]byte, 16)
	for i := 0; i < 10; i++ {
		out[15-i] = le[i]
	}
	return out
}

// TestReadGTWideIndices uses 300 vertices, so neighbour indices take two
// bytes (graph-tool switches at N > 255).
func TestReadGTWideIndices(t *testing.T) {
	for _, n := range []int{255, 256, 300} {
		adj := make([][]int, n)
		for v := 0; v+1 < n; v++ {
			adj[v] = []int{v + 1}
		}
		g, err := ReadGT(bytes.NewReader(encodeGT(false, false, n, adj, nil)))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		lg, _, err := g.Graph()
		if err != nil || lg.NumEdges() != n-1 || !lg.Connected() {
			t.Fatalf("n=%d: path read as %d edges, connected %v, %v", n, lg.NumEdges(), lg.Connected(), err)
		}
	}
}

func TestReadGTErrors(t *testing.T) {
	good := encodeGT(false, false, 3, [][]int{{1}, {2}, {}}, nil)
	cases := map[string][]byte{
		"empty":      {},
		"not gt":     []byte("hello world, not a graph"),
		"truncated":  good[:len(good)-3],
		"version 2":  append(append([]byte(nil), good[:6]...), append([]byte{2}, good[7:]...)...),
		"bad index":  encodeGT(false, false, 3, [][]int{{7}, {}, {}}, nil),
		"trailing":   append(append([]byte(nil), good...), 0),
		"bad type":   encodeGT(false, false, 3, [][]int{{1}, {}, {}}, []testProp{{1, "x", 99, func(*gtWriter) {}}}),
		"bad key":    encodeGT(false, false, 3, [][]int{{1}, {}, {}}, []testProp{{5, "x", 0, func(*gtWriter) {}}}),
		"huge count": append(append([]byte(nil), good[:8]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
	}
	withProp := encodeGT(false, false, 3, [][]int{{1}, {}, {}}, []testProp{
		{1, "label", 6, func(w *gtWriter) { w.str("a"); w.str("bb"); w.str("c") }},
		{2, "weight", 4, func(w *gtWriter) { w.put(0.5) }}})
	cases["truncated string"] = withProp[:len(withProp)-25] // inside "c", before the weights (24 bytes)
	cases["truncated value"] = withProp[:len(withProp)-3]
	cases["after a property"] = append(append([]byte(nil), withProp...), 1)
	for name, raw := range cases {
		for _, read := range []func(io.Reader) (*GT, error){ReadGT, ReadGTStructure} {
			_, err := read(bytes.NewReader(raw))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%s: got %v, want a *FormatError", name, err)
				continue
			}
			if !strings.HasPrefix(err.Error(), "datasets: gt file: at byte") {
				t.Errorf("%s: error %q", name, err)
			}
		}
	}
}

// TestKnownDatasets checks the fetched files (when scripts/fetch-datasets.sh
// has run) against the sizes graph-tool documents for them and against
// each file's own header line.
func TestKnownDatasets(t *testing.T) {
	for name, want := range Known {
		g, err := Open("", name)
		var me *MissingError
		if errors.As(err, &me) {
			t.Skipf("%v", err)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.N != want.Nodes || len(g.Edges) != want.Edges || g.Directed != want.Directed {
			t.Errorf("%s: N=%d E=%d directed=%v, documented %d/%d/%v", name, g.N, len(g.Edges), g.Directed, want.Nodes, want.Edges, want.Directed)
		}
		if !strings.Contains(g.Comment, "stats: ") {
			t.Errorf("%s: header %q", name, g.Comment)
		}
		lg, _, err := g.Graph()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if lg.N() != want.Nodes {
			t.Errorf("%s: graph has %d nodes", name, lg.N())
		}
		switch name {
		case "as-22july06":
			if lg.MaxDegree() < 2000 { // the hub of the AS graph has degree ≈ 2400
				t.Errorf("as-22july06 max degree %v", lg.MaxDegree())
			}
		case "football":
			labels, err := g.Labels("value")
			distinct := map[string]bool{}
			for _, l := range labels {
				distinct[l] = true
			}
			if err != nil || len(distinct) != 12 { // 11 conferences + independents
				t.Errorf("football: %d distinct 'value' labels, %v", len(distinct), err)
			}
		case "polbooks":
			labels, _ := g.Labels("value")
			count := map[string]int{}
			for _, l := range labels {
				count[l]++
			}
			if count["l"] != 43 || count["c"] != 49 || count["n"] != 13 {
				t.Errorf("polbooks labels %v, documented l 43, c 49, n 13", count)
			}
		}
	}
}

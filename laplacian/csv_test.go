package laplacian

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
)

func TestReadCSV(t *testing.T) {
	type edge struct {
		u, v string
		w    float64
	}
	tests := []struct {
		name   string
		in     string
		opt    Options
		keys   []string // in order of first appearance
		edges  []edge
		merged int
	}{
		{name: "no header, unweighted", in: "a,b\nb,c\n", keys: []string{"a", "b", "c"}, edges: []edge{{"a", "b", 1}, {"b", "c", 1}}},
		{name: "header source,target", in: "source,target\n1,2\n2,3\n", keys: []string{"1", "2", "3"}, edges: []edge{{"1", "2", 1}, {"2", "3", 1}}},
		{name: "header any case with weight", in: "Source, Target ,Weight\nx,y,2.5\n", keys: []string{"x", "y"}, edges: []edge{{"x", "y", 2.5}}},
		{name: "header detected by non-numeric weight", in: "from,to,w\n7,8,0.5\n", keys: []string{"7", "8"}, edges: []edge{{"7", "8", 0.5}}},
		{name: "numeric keys, numeric weight: no header", in: "1,2,3\n2,3,4\n", keys: []string{"1", "2", "3"}, edges: []edge{{"1", "2", 3}, {"2", "3", 4}}},
		{name: "from,to is a header", in: "from,to\nto,x\n", keys: []string{"to", "x"}, edges: []edge{{"to", "x", 1}}},
		{name: "comments and blank lines", in: "# edge list\n\nsource,target,weight\n\n# skip me\nu,v,1e-3\n   \nv,w,2\n", keys: []string{"u", "v", "w"}, edges: []edge{{"u", "v", 1e-3}, {"v", "w", 2}}},
		{name: "mixed 2 and 3 columns", in: "a,b\nb,c,4\n", keys: []string{"a", "b", "c"}, edges: []edge{{"a", "b", 1}, {"b", "c", 4}}},
		{name: "quoted keys with commas", in: "\"Smith, J\",\"Doe, A\",2\n", keys: []string{"Smith, J", "Doe, A"}, edges: []edge{{"Smith, J", "Doe, A", 2}}},
		{name: "BOM and CRLF", in: "\ufeffsource,target\r\na,b\r\n", keys: []string{"a", "b"}, edges: []edge{{"a", "b", 1}}},
		{name: "duplicates summed", in: "a,b,1\nb,a,2\n", opt: Options{Duplicates: DuplicatesSum}, keys: []string{"a", "b"}, edges: []edge{{"a", "b", 3}}, merged: 1},
		{name: "both ways merged", in: "a,b\nb,a\nb,c,2\nc,b,2\n", keys: []string{"a", "b", "c"}, edges: []edge{{"a", "b", 1}, {"b", "c", 2}}, merged: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadCSV(strings.NewReader(tc.in), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if g.N() != len(tc.keys) || g.NumEdges() != len(tc.edges) || g.DuplicatesMerged() != tc.merged {
				t.Fatalf("n=%d m=%d merged=%d, want %d %d %d", g.N(), g.NumEdges(), g.DuplicatesMerged(), len(tc.keys), len(tc.edges), tc.merged)
			}
			for i, k := range tc.keys {
				if g.Key(i) != k {
					t.Errorf("key %d = %q, want %q", i, g.Key(i), k)
				}
			}
			for _, e := range tc.edges {
				u, _ := g.IndexOf(e.u)
				v, ok := g.IndexOf(e.v)
				if !ok || g.EdgeWeight(u, v) != e.w {
					t.Errorf("edge %s–%s weight %v, want %v", e.u, e.v, g.EdgeWeight(u, v), e.w)
				}
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  Options
		line int
		want error  // errors.Is target
		u, v string // keys named by an *EdgeError
	}{
		{name: "negative weight", in: "a,b,1\nb,c,-1\n", line: 2, want: ErrBadWeight, u: "b", v: "c"},
		{name: "zero weight", in: "a,b,0\n", line: 1, want: ErrBadWeight, u: "a", v: "b"},
		{name: "NaN weight", in: "source,target,weight\na,b,NaN\n", line: 2, want: ErrBadWeight, u: "a", v: "b"},
		{name: "Inf weight", in: "# c\na,b,+Inf\n", line: 2, want: ErrBadWeight, u: "a", v: "b"},
		{name: "non-numeric weight after row 1", in: "a,b,1\nb,c,heavy\n", line: 2, want: ErrBadWeight, u: "b", v: "c"},
		{name: "only self-loops", in: "a,a\nb,b\n", want: ErrEmptyGraph},
		{name: "self-loop of a bad weight", in: "a,b\n\nc,c,-1\n", line: 3, want: ErrBadWeight, u: "c", v: "c"},
		{name: "one field", in: "a,b\nc\n", line: 2, want: ErrCSVFields},
		{name: "four fields", in: "a,b,1,2\n", line: 1, want: ErrCSVFields},
		{name: "empty key", in: "a,b\n,c\n", line: 2, want: ErrCSVFields},
		{name: "duplicate rejected", in: "a,b\nb,c\nb,a\n", opt: Options{Duplicates: DuplicatesReject}, line: 3, want: ErrDuplicateEdge, u: "b", v: "a"},
		{name: "empty file", in: "", want: ErrEmptyGraph},
		{name: "header only", in: "source,target,weight\n# nothing\n", want: ErrEmptyGraph},
		{name: "bad quoting", in: "a,b\n\"c,d\n", line: 2},
		{name: "degree overflow", in: "a,b,1e308\nb,c,1e308\n", want: ErrBadWeight},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadCSV(strings.NewReader(tc.in), tc.opt)
			var ce *CSVError
			if g != nil || !errors.As(err, &ce) {
				t.Fatalf("got %v, %v; want a *CSVError", g, err)
			}
			if ce.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", ce.Line, tc.line, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v does not wrap %v", err, tc.want)
			}
			if tc.u != "" {
				var ee *EdgeError
				if !errors.As(err, &ee) || ee.U != tc.u || ee.V != tc.v {
					t.Errorf("error %v does not name (%s, %s)", err, tc.u, tc.v)
				}
			}
			if !strings.HasPrefix(err.Error(), "edge list") || strings.Contains(err.Error(), "laplacian") {
				t.Errorf("error string %q", err)
			}
		})
	}
}

func TestLoadCSV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.csv")
	if err := os.WriteFile(p, []byte("source,target\na,b\nb,c\nd,e\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := LoadCSV(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := g.Components(); g.N() != 5 || c != 2 {
		t.Errorf("n=%d components=%d, want 5, 2", g.N(), c)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b\nb,b,0\n"), 0o600)
	_, err = LoadCSV(bad, Options{})
	var ce *CSVError
	if !errors.As(err, &ce) || ce.Path != bad || ce.Line != 2 || !strings.Contains(err.Error(), "bad.csv") {
		t.Errorf("error %v should name the file and line 2", err)
	}
	if _, err := LoadCSV(filepath.Join(dir, "missing.csv"), Options{}); !errors.Is(err, os.ErrNotExist) || !errors.As(err, &ce) {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\nb,c\n",
		"source,target,weight\n1,2,0.5\n2,3,1e300\n",
		"# c\n\nx,y,NaN\n",
		"\"q,1\",\"q,2\",3\nq,q\n",
		"a,b,1\nb,a,2\n",
		"\ufeffsource,target\r\n1,2\r\n",
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, sum bool) {
		rule := DuplicatesMerge
		if sum {
			rule = DuplicatesSum
		}
		g, err := ReadCSV(strings.NewReader(in), Options{Duplicates: rule})
		if err != nil {
			if g != nil {
				t.Fatal("graph and error both returned")
			}
			return
		}
		checkValid(t, g)
	})
}

// checkValid asserts the CSR invariants of a built graph.
func checkValid(t *testing.T, g *Graph) {
	t.Helper()
	n := g.N()
	if n <= 0 {
		t.Fatal("empty graph returned")
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		k := g.Key(i)
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
		if j, ok := g.IndexOf(k); !ok || j != i {
			t.Fatalf("IndexOf(Key(%d)) = %d, %v", i, j, ok)
		}
		cols, ws := g.Neighbors(i)
		d := 0.0
		for p, j := range cols {
			if int(j) == i || j < 0 || int(j) >= n || (p > 0 && cols[p-1] >= j) {
				t.Fatalf("row %d not strictly sorted / has self-loop: %v", i, cols)
			}
			w := 1.0
			if ws != nil {
				w = ws[p]
			}
			if !(w > 0) || math.IsInf(w, 0) {
				t.Fatalf("bad weight %v", w)
			}
			if g.EdgeWeight(int(j), i) != w {
				t.Fatalf("asymmetric weight %d–%d", i, j)
			}
			d += w
		}
		if math.IsInf(d, 0) || d != g.Degree(i) {
			t.Fatalf("degree %d: %v vs %v", i, d, g.Degree(i))
		}
	}
}

// The header rules: a from,to header is recognised (it used to
// be read as an edge, adding two nodes and a component); an unrecognised
// non-numeric first row above numeric rows is refused; --header decides
// explicitly; a byte-order mark and CRLF line ends are ignored; quoted keys
// are verbatim, so keys starting with '#' or a space can be addressed.
func TestReadCSVHeaderRules(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  Options
		keys []string
	}{
		{"from,to header", "from,to\na,b\nb,c\n", Options{}, []string{"a", "b", "c"}},
		{"Source,Target,Weight header", "Source,Target,Weight\na,b,2\n", Options{}, []string{"a", "b"}},
		{"BOM and CRLF", "\ufeffsource,target\r\na,b\r\nb,c\r\n", Options{}, []string{"a", "b", "c"}},
		{"header yes", "x,y\n1,2\n", Options{Header: csvin.HeaderYes}, []string{"1", "2"}},
		{"header no", "x,y\na,b\n", Options{Header: csvin.HeaderNo}, []string{"x", "y", "a", "b"}},
		{"header no keeps from,to", "from,to\nto,x\n", Options{Header: csvin.HeaderNo}, []string{"from", "to", "x"}},
		{"quoted keys verbatim", "\"#a\",\" b\"\n\" b\",c\n", Options{}, []string{"#a", " b", "c"}},
		{"string keys without header", "alice,bob\nbob,carol\n", Options{}, []string{"alice", "bob", "carol"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadCSV(strings.NewReader(tc.in), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := 0; i < g.N(); i++ {
				got = append(got, g.Key(i))
			}
			if !slices.Equal(got, tc.keys) {
				t.Errorf("keys %q, want %q", got, tc.keys)
			}
		})
	}
	for _, in := range []string{"x,y\n1,2\n2,3\n", "a,b,kind\nc,d,1\n"} {
		_, err := ReadCSV(strings.NewReader(in), Options{})
		var ce *CSVError
		if !errors.Is(err, ErrCSVHeader) || !errors.As(err, &ce) || ce.Line != 1 {
			t.Errorf("%q: got %v, want an unrecognised-header error on line 1", in, err)
		}
	}
}

// Keys of two types (integers beside strings) are refused as load
// refuses them (laplacian.CheckKeyTypes): "1,two" used to add a string
// node and a second component. LoadCSV names the line of the first key
// of the other type.
func TestReadCSVRefusesMixedKeyTypes(t *testing.T) {
	for _, c := range []struct {
		in, key string
		line    int
	}{
		{"1,2\n2,3\n1,two\n", "two", 3},
		{"source,target\na,b\nb,7\n", "7", 3},
		{"-5,2\n2,x\n", "x", 2},
	} {
		path := filepath.Join(t.TempDir(), "e.csv")
		if err := os.WriteFile(path, []byte(c.in), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCSV(path, Options{})
		var kt *KeyTypeError
		var ce *CSVError
		if !errors.As(err, &kt) || kt.Key != c.key || !errors.As(err, &ce) || ce.Line != c.line || errkind.Of(err) != errkind.BadInput {
			t.Errorf("%q: got %v, want key %q refused on line %d", c.in, err, c.key, c.line)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "of one type") {
			t.Errorf("%q: %s does not name the file and the rule", c.in, msg)
		}
	}
	// One type, either: accepted ("007" is integer-like, as load reads it).
	for _, in := range []string{"1,2\n2,007\n", "a,b\nb,c\n"} {
		if _, err := ReadCSV(strings.NewReader(in), Options{}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// Decimal keys are looked up by value in a table whose bound grows with
// the node count: a key first seen beyond the bound and met again once
// the bound passed it must still be the same node.
func TestReadCSVDecimalKeysAcrossTheTableBound(t *testing.T) {
	var b strings.Builder
	big := 1<<20 + 100 // beyond the bound 8·nodes + 2²⁰ at first, within it after 13 nodes
	fmt.Fprintf(&b, "%d,0\n", big)
	const chain = 100
	for i := 0; i < chain; i++ {
		fmt.Fprintf(&b, "%d,%d\n", i, i+1)
	}
	fmt.Fprintf(&b, "%d,5\n0500,5\n", big) // again; "0500" is not the decimal 500 (and no key collides with it)
	g, err := ReadCSV(strings.NewReader(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := chain + 1 + 2; g.N() != want {
		t.Fatalf("%d nodes, want %d", g.N(), want)
	}
	i, ok := g.IndexOf(strconv.Itoa(big))
	if !ok || g.EdgeWeight(i, mustIndex(t, g, "5")) != 1 || g.EdgeWeight(i, mustIndex(t, g, "0")) != 1 {
		t.Errorf("key %d is not one node with edges to 0 and 5", big)
	}
	if _, ok := g.IndexOf("500"); ok || g.EdgeWeight(mustIndex(t, g, "0500"), mustIndex(t, g, "5")) != 1 {
		t.Error(`"0500" read as node 500`)
	}
}

func mustIndex(t *testing.T, g *Graph, key string) int {
	t.Helper()
	i, ok := g.IndexOf(key)
	if !ok {
		t.Fatalf("no node %q", key)
	}
	return i
}

// Reading blocks of lines in parallel pieces must give what reading line
// by line gives: the same graph (keys, rows, weights) or the same error.
// Three pieces per block, whatever its size, so even short inputs are cut.
func FuzzReadCSVBlocksAgreeWithLines(f *testing.F) {
	for _, s := range []string{
		"a,b\nb,c\n",
		"source,target,weight\n1,2,0.5\n2,3,1e300\n3,4\n4,5,1\n",
		"1,2\n3,4\n# c\n\n5,6\n2,1\n7,7\n",
		"\"q,1\",\"q,2\",3\nq,q\n1,2\n2,3\n",
		"1,2\n2,3\n3,4,-1\n4,5\n",
		"1,2\n01,2\n2,x\n x ,1\n1,2,3,4\n",
		"\ufeffsource,target\r\n1,2\r\n2,3\r\n",
		"10,20\n20,30\n30,10\n99999999999,1\n",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, reject bool) {
		opt := Options{}
		if reject {
			opt.Duplicates = DuplicatesReject
		}
		want, werr := readCSV(strings.NewReader(in), opt, -1)
		got, gerr := readCSV(strings.NewReader(in), opt, 3)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("blocks: error %v, lines: %v", gerr, werr)
		}
		if werr != nil {
			return
		}
		if !reflect.DeepEqual(got.Keys(), want.Keys()) {
			t.Fatalf("keys: blocks %q, lines %q", got.Keys(), want.Keys())
		}
		gr, gc, gw := got.CSR()
		wr, wc, ww := want.CSR()
		if !reflect.DeepEqual(gr, wr) || !reflect.DeepEqual(gc, wc) || !reflect.DeepEqual(gw, ww) {
			t.Fatal("blocks and lines give different rows")
		}
	})
}

// A big edge list is read in blocks of parallel pieces whose plain rows
// keep no line numbers of their own: a bad row, or a repeated edge when
// duplicates are rejected, deep in it must still be reported on its own
// line, past comments and blank lines that shift the count.
func TestReadCSVBigInputErrorLines(t *testing.T) {
	build := func(bad string, at int) string {
		var sb strings.Builder
		sb.WriteString("source,target\n")
		for line := 2; line <= 200_000; line++ {
			switch {
			case line == at:
				sb.WriteString(bad)
			case line%1000 == 0:
				sb.WriteString("# a comment\n")
			case line%777 == 0:
				sb.WriteString("\n")
			default:
				fmt.Fprintf(&sb, "%d,%d\n", line, line+1)
			}
		}
		return sb.String()
	}
	for _, c := range []struct {
		name string
		in   string
		opt  Options
		want string
	}{
		{"bad weight", build("5,6,x\n", 123_457), Options{}, "line 123457"},
		{"self-loop of a bad weight", build("9,9,0\n", 180_001), Options{}, "line 180001"},
		{"duplicate", build("100,101\n", 150_001), Options{Duplicates: DuplicatesReject}, "line 150001"},
		{"duplicate, its first line", build("100,101\n", 150_001), Options{Duplicates: DuplicatesReject}, "first on line 100"},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one on %s", c.name, err, c.want)
		}
	}
}

// Keys a reader takes for one node — equal as integers ("027", "27") or
// equal but for case ("Alice", "alice") — are refused, naming both and
// the line (issue 77, item 6); they used to become two nodes silently.
func TestReadCSVRefusesKeysWrittenTwoWays(t *testing.T) {
	for _, c := range []struct{ name, csv, a, b string }{
		{"leading zero", "1,027\n027,3\n3,27\n", "027", "27"},
		{"sign", "+5,6\n6,7\n7,5\n", "+5", "5"},
		{"case", "Alice,bob\nbob,carol\ncarol,alice\n", "Alice", "alice"},
		{"case, unicode", "Émile,x\nx,émile\n", "Émile", "émile"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "e.csv")
			if err := os.WriteFile(path, []byte(c.csv), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadCSV(path, Options{})
			var kt *KeyTypeError
			if !errors.As(err, &kt) || kt.Same != c.a || kt.Key != c.b {
				t.Fatalf("%v: want a collision of %q and %q", err, c.a, c.b)
			}
			if errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), strconv.Quote(c.a)) || !strings.Contains(err.Error(), "line") {
				t.Errorf("%v (kind %v): want bad input naming %q and a line", err, errkind.Of(err), c.a)
			}
		})
	}
	// Keys that differ otherwise are read as before.
	for _, ok := range []string{"1,2\n2,10\n10,100\n", "a,b\nb,ab\n", "0,1\n1,-1\n"} {
		if _, err := ReadCSV(strings.NewReader(ok), Options{}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

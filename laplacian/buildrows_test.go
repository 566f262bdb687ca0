package laplacian

import (
	"math/rand/v2"

	"github.com/graphcloak/graphcloak/internal/csvin"
	"reflect"
	"runtime"
	"testing"
)

// buildRows cuts big edge lists between goroutines and fills the rows in
// buckets; the rows must be those of the sequential pass (countRows,
// scatter, then sortRows) link for link, and a bad edge must give the
// sequential pass's error. 5 000 nodes make 2 buckets, 50 000 make 13.
func TestBuildRowsMatchesSequential(t *testing.T) {
	for _, n := range []int{5000, 50000} {
		buildRowsMatchesSequential(t, n)
	}
}

func buildRowsMatchesSequential(t *testing.T, n int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(1, 2))
	edges := make([]Edge, 3*parallelEdges+17)
	for i := range edges {
		u := int32(rng.IntN(n))
		v := int32(rng.IntN(n - 1))
		if v >= u {
			v++
		}
		w := 1.0
		if i%3 == 0 {
			w = float64(1 + rng.IntN(5))
		}
		edges[i] = Edge{u, v, w}
	}
	for _, unit := range []bool{false, true} {
		es := edges
		if unit {
			es = make([]Edge, len(edges))
			for i, e := range edges {
				es[i] = Edge{e.U, e.V, 1}
			}
		}
		g := &Graph{n: n}
		rowPtr, col, w, err := g.buildRows(es)
		if err != nil {
			t.Fatal(err)
		}
		wantPtr, u, err := g.countRows(es)
		if err != nil {
			t.Fatal(err)
		}
		wantCol, wantW := scatter(wantPtr, es, u)
		if _, err := g.sortRows(wantPtr, wantCol, wantW, false); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rowPtr, wantPtr) || !reflect.DeepEqual(col, wantCol) || !reflect.DeepEqual(w, wantW) {
			t.Fatalf("unit=%v: the parallel rows differ from the sequential ones (%v %v %v)", unit, reflect.DeepEqual(rowPtr, wantPtr), reflect.DeepEqual(col, wantCol), reflect.DeepEqual(w, wantW))
		}
		if unit != (w == nil) {
			t.Fatalf("unit=%v: weights stored: %v", unit, w != nil)
		}
	}
	bad := append([]Edge(nil), edges...)
	bad[len(bad)-5] = Edge{7, 8, 0}                   // a zero weight late in the last run
	bad[2*parallelEdges+3] = Edge{1, int32(n) + 3, 1} // out of range earlier, in another run
	g := &Graph{n: n}
	_, _, _, err := g.buildRows(bad)
	_, _, want := g.countRows(bad)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("error %v, the sequential pass gives %v", err, want)
	}
}

// decimalPair is a shortcut for the commonest line; where it takes a line,
// its keys must be those SplitLine and plainEdge give, with weight 1. Keys
// of maxNumKey or more (9999999999) are left to plainEdge.
func TestDecimalPairAgreesWithSplitLine(t *testing.T) {
	lines := []string{"0,1", "12,345", "345,12\r", "7,7", "07,8", "8,07", "0,0", "1,2,3", "1, 2", " 1,2",
		"1,2 ", "9999999999,1", "12345678901,1", "1,", ",1", "a,1", "1,b", "#1,2", "", "1,2\r\r", "10,2"}
	taken := 0
	for _, l := range lines {
		piece := []byte("x\n" + l + "\n")
		line := piece[2 : 2+len(l)]
		a, b, ok := decimalPair(line)
		if !ok {
			continue
		}
		taken++
		fields, skip := csvinSplit(line)
		if skip {
			t.Fatalf("%q: taken, but SplitLine skips it", l)
		}
		if want := plainEdge(piece, fields, line); want.slow || want.a != int64(a) || want.b != int64(b) || want.w != 1 {
			t.Errorf("%q: keys %d, %d, SplitLine and plainEdge give %+v", l, a, b, want)
		}
	}
	if taken != 4 {
		t.Errorf("the shortcut took %d lines, want 4", taken)
	}
}

func csvinSplit(line []byte) ([][]byte, bool) { return csvin.SplitLine(line, nil) }

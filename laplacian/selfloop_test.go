package laplacian

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/csvin"
)

// denseLaplacian is the oracle: L = D − W of the rows (u, v, w) as a
// matrix over the keys, a self-loop (a, a, w) included as W_aa += w with
// D the row sums of W (so the loop adds w to D_aa too). Rows of one pair
// add (DuplicatesSum's multigraph).
func denseLaplacian(rows [][3]string) (keys []string, L map[[2]string]float64) {
	W := map[[2]string]float64{}
	deg := map[string]float64{}
	for _, r := range rows {
		w, _ := strconv.ParseFloat(r[2], 64)
		for _, k := range r[:2] {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		W[[2]string{r[0], r[1]}] += w
		deg[r[0]] += w
		if r[0] != r[1] {
			W[[2]string{r[1], r[0]}] += w
			deg[r[1]] += w
		}
	}
	L = map[[2]string]float64{}
	for _, a := range keys {
		for _, b := range keys {
			L[[2]string{a, b}] = -W[[2]string{a, b}]
		}
		L[[2]string{a, a}] += deg[a]
	}
	return keys, L
}

// A self-loop is skipped, its node kept, from an edge list as from
// FromEdges (the rule every source follows, issue 77 item 6): the graph's
// Laplacian is the oracle's L = D − W of the rows with the loops in —
// they cancel — on random weighted graphs with loops anywhere (first row,
// last row, repeated, on a node with no other edge, under every duplicate
// rule); the count and the first loop's key are reported. On main an
// edge list with a loop was refused.
func TestSelfLoopsSkippedKeepTheLaplacian(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 6))
	for trial := range 40 {
		n := 3 + rng.IntN(8)
		var rows [][3]string
		loops, first := 0, ""
		for range 2*n + rng.IntN(3*n) {
			a, b := rng.IntN(n), rng.IntN(n)
			if rng.IntN(5) == 0 {
				b = a
			}
			w := strconv.Itoa(1 + rng.IntN(3))
			if trial%2 == 0 {
				w = "1"
			}
			rows = append(rows, [3]string{"k" + strconv.Itoa(a), "k" + strconv.Itoa(b), w})
		}
		rows = append(rows, [3]string{"lonely", "lonely", "2"}) // a node whose one row is a loop
		rows = append([][3]string{{"k0", "k0", "1"}}, rows...)
		for _, r := range rows {
			if r[0] == r[1] {
				if loops == 0 {
					first = r[0]
				}
				loops++
			}
		}
		var csv strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&csv, "%s,%s,%s\n", r[0], r[1], r[2])
		}
		keys, want := denseLaplacian(rows)
		g, err := ReadCSV(strings.NewReader(csv.String()), Options{Duplicates: DuplicatesSum, Header: csvin.HeaderNo})
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, csv.String())
		}
		if !slices.Equal(g.Keys(), keys) {
			t.Fatalf("trial %d: nodes %v, want %v (a loop's node is kept)", trial, g.Keys(), keys)
		}
		L := g.Laplacian().Dense()
		for i, a := range keys {
			for j, b := range keys {
				if got := L.At(i, j); got != want[[2]string{a, b}] {
					t.Fatalf("trial %d: L[%s,%s] = %v, the oracle's (loops in) %v", trial, a, b, got, want[[2]string{a, b}])
				}
			}
		}
		if m := g.Merges(); m.SelfLoops != loops || m.SelfLoopKey != first || m.Rows+loops != len(rows) {
			t.Errorf("trial %d: merges %+v, want %d self-loops, first %q, %d rows besides", trial, m, loops, first, len(rows)-loops)
		}
		// Under merge and reject, a repeated loop is no repeated pair.
		for _, rule := range []DuplicateRule{DuplicatesMerge, DuplicatesReject} {
			in := "a,b\nb,b\nb,c\nb,b\n"
			if g, err := ReadCSV(strings.NewReader(in), Options{Duplicates: rule}); err != nil || g.NumEdges() != 2 || g.Merges().SelfLoops != 2 {
				t.Fatalf("%v: %v", rule, err)
			}
		}
	}
}

// The parallel builder leaves out the same loops as the sequential one and
// names the same first loop, whichever run it falls in.
func TestBuildRowsSkipsSelfLoopsAsSequential(t *testing.T) {
	n := 5000
	rng := rand.New(rand.NewPCG(3, 4))
	edges := make([]Edge, 3*parallelEdges+17)
	loops := 0
	for i := range edges {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if i%1009 == 1000 || i == len(edges)-1 {
			v = u
		}
		if u == v {
			loops++
		}
		edges[i] = Edge{u, v, 1}
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "n" + strconv.Itoa(i)
	}
	g, err := FromEdges(0, keys, edges, Options{Duplicates: DuplicatesSum})
	if err != nil {
		t.Fatal(err)
	}
	seq := &Graph{n: n, keys: keys, custom: true}
	if _, _, err := seq.countRows(edges); err != nil {
		t.Fatal(err)
	}
	m := g.Merges()
	if m.SelfLoops != loops || seq.merges.SelfLoops != loops || m.SelfLoopKey != seq.merges.SelfLoopKey || m.SelfLoopKey != keys[edges[1000].U] {
		t.Fatalf("parallel %d loops (first %q), sequential %d (%q); want %d, first %q",
			m.SelfLoops, m.SelfLoopKey, seq.merges.SelfLoops, seq.merges.SelfLoopKey, loops, keys[edges[1000].U])
	}
	if g.NumEdges()+m.Merged != len(edges)-loops || m.Rows != len(edges)-loops {
		t.Errorf("%d edges, %d merged, %d rows: want %d rows besides loops", g.NumEdges(), m.Merged, m.Rows, len(edges)-loops)
	}
	for i := range n {
		if g.EdgeWeight(i, i) != 0 {
			t.Fatalf("node %d keeps a loop", i)
		}
	}
}

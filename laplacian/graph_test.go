package laplacian

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

func TestFromEdgesValidation(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	keys := []string{"a", "b", "c"}
	tests := []struct {
		name   string
		n      int
		keys   []string
		edges  []Edge
		opt    Options
		want   error
		u, v   string // keys named by the *EdgeError, when any
		merged int
	}{
		{name: "negative weight", keys: keys, edges: []Edge{{0, 1, 1}, {1, 2, -2}}, want: ErrBadWeight, u: "b", v: "c"},
		{name: "zero weight", keys: keys, edges: []Edge{{0, 1, 0}}, want: ErrBadWeight, u: "a", v: "b"},
		{name: "NaN weight", keys: keys, edges: []Edge{{2, 0, nan}}, want: ErrBadWeight, u: "c", v: "a"},
		{name: "+Inf weight", keys: keys, edges: []Edge{{0, 2, inf}}, want: ErrBadWeight, u: "a", v: "c"},
		{name: "-Inf weight", keys: keys, edges: []Edge{{0, 2, -inf}}, want: ErrBadWeight, u: "a", v: "c"},
		{name: "self-loop skipped", keys: keys, edges: []Edge{{1, 1, 1}, {0, 1, 1}}},
		{name: "self-loop of a bad weight", keys: keys, edges: []Edge{{1, 1, 0}}, want: ErrBadWeight, u: "b", v: "b"},
		{name: "out of range high", keys: keys, edges: []Edge{{0, 3, 1}}, want: ErrNodeOutOfRange, u: "a", v: "3"},
		{name: "out of range negative", n: 3, edges: []Edge{{-1, 2, 1}}, want: ErrNodeOutOfRange, u: "-1", v: "2"},
		{name: "empty (n=0)", n: 0, want: ErrEmptyGraph},
		{name: "empty keys", keys: []string{}, want: ErrEmptyGraph},
		{name: "duplicate key", keys: []string{"a", "b", "a"}, want: ErrDuplicateKey},
		{name: "duplicate edge rejected", keys: keys, edges: []Edge{{0, 1, 1}, {1, 2, 1}, {1, 0, 2}}, opt: Options{Duplicates: DuplicatesReject}, want: ErrDuplicateEdge, u: "a", v: "b"},
		{name: "duplicate edge summed", keys: keys, edges: []Edge{{0, 1, 1}, {1, 2, 1}, {1, 0, 2}}, opt: Options{Duplicates: DuplicatesSum}, merged: 1},
		{name: "duplicate edge merged", keys: keys, edges: []Edge{{0, 1, 2}, {1, 2, 1}, {1, 0, 2}}, merged: 1},
		{name: "disagreeing duplicate refused", keys: keys, edges: []Edge{{0, 1, 1}, {1, 2, 1}, {1, 0, 2}}, want: ErrConflictingDuplicate},
		{name: "no edges is valid", n: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := FromEdges(tc.n, tc.keys, tc.edges, tc.opt)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if g.DuplicatesMerged() != tc.merged {
					t.Errorf("DuplicatesMerged = %d, want %d", g.DuplicatesMerged(), tc.merged)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if tc.u != "" {
				var ee *EdgeError
				if !errors.As(err, &ee) {
					t.Fatalf("error %v is not an *EdgeError", err)
				}
				if ee.U != tc.u || ee.V != tc.v {
					t.Errorf("EdgeError names (%s, %s), want (%s, %s)", ee.U, ee.V, tc.u, tc.v)
				}
			}
		})
	}
}

func TestDuplicatesMergedSumWeights(t *testing.T) {
	// a–b given three times (1 + 2 + 0.5), b–c twice in both orientations.
	edges := []Edge{{0, 1, 1}, {1, 0, 2}, {0, 1, 0.5}, {1, 2, 1}, {2, 1, 1}}
	g, err := FromEdges(0, []string{"a", "b", "c"}, edges, Options{Duplicates: DuplicatesSum})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() != 2 || g.DuplicatesMerged() != 3 {
		t.Fatalf("edges %d merged %d, want 2 and 3", g.NumEdges(), g.DuplicatesMerged())
	}
	if w := g.EdgeWeight(0, 1); w != 3.5 {
		t.Errorf("w(a,b) = %v, want 3.5", w)
	}
	if w := g.EdgeWeight(2, 1); w != 2 {
		t.Errorf("w(c,b) = %v, want 2", w)
	}
	if g.Unweighted() {
		t.Error("merged graph reported as unweighted")
	}
	want := []float64{3.5, 5.5, 2}
	for i, d := range want {
		if g.Degree(i) != d {
			t.Errorf("degree(%d) = %v, want %v", i, g.Degree(i), d)
		}
	}
	// Unit-weight duplicates only: the summed weight 2 must appear.
	g, err = FromEdges(3, nil, []Edge{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}}, Options{Duplicates: DuplicatesSum})
	if err != nil {
		t.Fatal(err)
	}
	if g.EdgeWeight(1, 0) != 2 || g.EdgeWeight(1, 2) != 1 || g.Degree(1) != 3 || g.Unweighted() {
		t.Errorf("unit duplicates: w10=%v w12=%v d1=%v unweighted=%v", g.EdgeWeight(1, 0), g.EdgeWeight(1, 2), g.Degree(1), g.Unweighted())
	}
}

func TestComponents(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
		want  int
	}{
		{"isolated nodes", 5, nil, 5},
		{"single edge plus isolated", 3, []Edge{{0, 2, 1}}, 2},
		{"two triangles", 6, []Edge{{0, 1, 1}, {1, 2, 1}, {2, 0, 1}, {3, 4, 1}, {4, 5, 1}, {5, 3, 1}}, 2},
		{"chain joins all", 4, []Edge{{3, 2, 1}, {0, 1, 1}, {2, 1, 1}}, 1},
		{"three pieces", 7, []Edge{{0, 6, 1}, {1, 5, 1}, {2, 3, 1}, {3, 4, 1}}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := FromEdges(tc.n, nil, tc.edges, Options{})
			if err != nil {
				t.Fatal(err)
			}
			count, label := g.Components()
			if count != tc.want {
				t.Fatalf("components = %d, want %d", count, tc.want)
			}
			if g.Connected() != (tc.want == 1) {
				t.Errorf("Connected() = %v", g.Connected())
			}
			// Independent check with union-find: same partition.
			parent := make([]int, tc.n)
			for i := range parent {
				parent[i] = i
			}
			var find func(int) int
			find = func(i int) int {
				if parent[i] != i {
					parent[i] = find(parent[i])
				}
				return parent[i]
			}
			for _, e := range tc.edges {
				parent[find(int(e.U))] = find(int(e.V))
			}
			for i := 0; i < tc.n; i++ {
				for j := 0; j < tc.n; j++ {
					if (find(i) == find(j)) != (label[i] == label[j]) {
						t.Fatalf("nodes %d, %d: union-find and labels disagree", i, j)
					}
				}
				if label[i] < 0 || int(label[i]) >= count {
					t.Fatalf("label %d out of range", label[i])
				}
			}
		})
	}
}

func TestKeysAndNeighbours(t *testing.T) {
	g, err := FromEdges(0, []string{"x", "y", "z", "w"}, []Edge{{3, 0, 2}, {0, 2, 1}, {1, 0, 4}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := g.IndexOf("z"); !ok || i != 2 || g.Key(2) != "z" {
		t.Errorf("IndexOf(z) = %d, %v", i, ok)
	}
	if _, ok := g.IndexOf("q"); ok {
		t.Error("IndexOf found a missing key")
	}
	cols, ws := g.Neighbors(0)
	wantC, wantW := []int32{1, 2, 3}, []float64{4, 1, 2}
	for k := range wantC {
		if cols[k] != wantC[k] || ws[k] != wantW[k] {
			t.Fatalf("row 0 = %v %v, want sorted %v %v", cols, ws, wantC, wantW)
		}
	}
	if g.EdgeWeight(1, 2) != 0 || g.EdgeWeight(3, 0) != 2 {
		t.Error("EdgeWeight wrong")
	}
	if g.MaxDegree() != 7 {
		t.Errorf("MaxDegree = %v, want 7", g.MaxDegree())
	}
	var sum float64
	count := 0
	g.ForEachEdge(func(i, j int, w float64) {
		if i >= j {
			t.Errorf("ForEachEdge gave i=%d ≥ j=%d", i, j)
		}
		sum += w
		count++
	})
	if count != 3 || sum != 7 {
		t.Errorf("ForEachEdge: %d edges, weight %v; want 3, 7", count, sum)
	}

	// Default keys are the decimal indices, without leading zeros or signs.
	d, err := FromEdges(12, nil, []Edge{{0, 11, 1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"0": 0, "11": 11, "5": 5} {
		if i, ok := d.IndexOf(key); !ok || i != want || d.Key(want) != key {
			t.Errorf("default key %q: IndexOf = %d, %v", key, i, ok)
		}
	}
	for _, key := range []string{"12", "-1", "05", "+5", "x", ""} {
		if _, ok := d.IndexOf(key); ok {
			t.Errorf("IndexOf(%q) found a node", key)
		}
	}
	if ks := d.Keys(); len(ks) != 12 || ks[7] != "7" {
		t.Errorf("Keys() = %v", ks)
	}
	if !d.Unweighted() || d.Bytes() <= 0 {
		t.Error("unit graph should be unweighted with positive Bytes")
	}
}

func TestWeightOverflow(t *testing.T) {
	big := math.MaxFloat64 / 1.5
	if _, err := FromEdges(2, nil, []Edge{{0, 1, big}, {1, 0, big}}, Options{Duplicates: DuplicatesSum}); !errors.Is(err, ErrBadWeight) {
		t.Errorf("merged overflow: %v", err)
	}
	if _, err := FromEdges(3, nil, []Edge{{0, 1, big}, {1, 2, big}}, Options{}); !errors.Is(err, ErrBadWeight) {
		t.Errorf("degree overflow: %v", err)
	}
}

func TestConcurrentReads(t *testing.T) {
	// Keys are materialised lazily; concurrent first calls must be safe
	// (run with -race) and agree.
	g, err := Path(1000)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []string)
	for range 4 {
		go func() { done <- g.Keys() }()
	}
	first := <-done
	for range 3 {
		if ks := <-done; &ks[0] != &first[0] {
			t.Error("Keys materialised twice")
		}
	}
	if first[999] != "999" {
		t.Errorf("key 999 = %q", first[999])
	}
}

// sortRow must order a row by column with its weights carried along and
// equal columns in their first order: against a stable sort of the pairs,
// on rows short (insertion) and long (packed keys), with repeats.
func TestSortRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 24, 25, 40, 300} {
		for trial := 0; trial < 20; trial++ {
			c := make([]int32, n)
			w := make([]float64, n)
			type pair struct {
				c int32
				w float64
			}
			want := make([]pair, n)
			for i := range c {
				c[i] = int32(rng.IntN(n/2 + 1)) // repeats
				w[i] = float64(i)               // the weight tells the original position
				want[i] = pair{c[i], w[i]}
			}
			slices.SortStableFunc(want, func(a, b pair) int { return int(a.c) - int(b.c) })
			sortRow(c, w)
			for i := range want {
				if c[i] != want[i].c || w[i] != want[i].w {
					t.Fatalf("n=%d: position %d holds (%d, %v), want (%d, %v)", n, i, c[i], w[i], want[i].c, want[i].w)
				}
			}
		}
	}
}

// TestDuplicateRules: a pair given twice with one weight is one edge of
// that weight by default (unweighted stays unweighted); with two weights
// it is refused as bad input naming the pair, both weights in the order
// given and the rule's parameter; sum adds; reject refuses any repeat.
func TestDuplicateRules(t *testing.T) {
	keys := []string{"a", "b", "c"}
	g, err := FromEdges(0, keys, []Edge{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 2, 1}, {2, 1, 1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Unweighted() || g.NumEdges() != 2 || g.Degree(1) != 2 {
		t.Errorf("merge: unweighted %v, %d edges, degree(b) %v; want unweighted, 2, 2", g.Unweighted(), g.NumEdges(), g.Degree(1))
	}
	if m := g.Merges(); m != (Merges{Rows: 5, Pairs: 2, Merged: 3, Rule: "merge"}) {
		t.Errorf("merges %+v", m)
	}
	_, err = FromEdges(0, keys, []Edge{{0, 1, 0.5}, {1, 2, 1}, {1, 0, 0.25}}, Options{})
	var de *DuplicateError
	if !errors.As(err, &de) || !errors.Is(err, ErrConflictingDuplicate) || errkind.Of(err) != errkind.BadInput {
		t.Fatalf("disagreeing weights: %v (kind %v)", err, errkind.Of(err))
	}
	if de.U != "a" || de.V != "b" || de.W1 != 0.5 || de.W2 != 0.25 {
		t.Errorf("refusal names %+v, want (a, b) with 0.5 then 0.25", *de)
	}
	if msg := errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }); !strings.Contains(msg, "--duplicate-edges sum") {
		t.Errorf("refusal does not name the rule: %s", msg)
	}
	g, err = FromEdges(0, keys, []Edge{{0, 1, 0.5}, {1, 2, 1}, {1, 0, 0.25}}, Options{Duplicates: DuplicatesSum})
	if err != nil || g.EdgeWeight(0, 1) != 0.75 || g.Merges().Rule != "sum" {
		t.Errorf("sum: %v, w(a,b) %v", err, g.EdgeWeight(0, 1))
	}
	if _, err := FromEdges(0, keys, []Edge{{0, 1, 1}, {1, 0, 1}}, Options{Duplicates: DuplicatesReject}); !errors.Is(err, ErrDuplicateEdge) {
		t.Errorf("reject: %v", err)
	}
	for _, name := range DuplicateRuleNames() {
		if r, err := ParseDuplicateRule(name); err != nil || r.String() != name {
			t.Errorf("ParseDuplicateRule(%q) = %v, %v", name, r, err)
		}
	}
	if _, err := ParseDuplicateRule("max"); err == nil {
		t.Error("ParseDuplicateRule accepted max")
	}
}

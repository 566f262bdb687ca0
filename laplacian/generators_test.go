package laplacian

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// degreeHistogram maps degree → count.
func degreeHistogram(g *Graph) map[float64]int {
	h := map[float64]int{}
	for _, d := range g.Degrees() {
		h[d]++
	}
	return h
}

func TestGeneratorsClosedForms(t *testing.T) {
	grid := func(r, c int) func() (*Graph, error) { return func() (*Graph, error) { return Grid(r, c) } }
	gen := func(f func(int) (*Graph, error), n int) func() (*Graph, error) {
		return func() (*Graph, error) { return f(n) }
	}
	tests := []struct {
		name  string
		build func() (*Graph, error)
		n, m  int
		degs  map[float64]int // closed-form degree histogram
	}{
		// Grid r×c: 2rc − r − c edges; 4 corners of degree 2, 2(r−2)+2(c−2)
		// border nodes of degree 3, (r−2)(c−2) interior of degree 4.
		{"grid 5x7", grid(5, 7), 35, 2*35 - 5 - 7, map[float64]int{2: 4, 3: 2*3 + 2*5, 4: 3 * 5}},
		{"grid 1x6 is a path", grid(1, 6), 6, 5, map[float64]int{1: 2, 2: 4}},
		{"grid 2x2 is a 4-cycle", grid(2, 2), 4, 4, map[float64]int{2: 4}},
		{"path 10", gen(Path, 10), 10, 9, map[float64]int{1: 2, 2: 8}},
		{"path 2", gen(Path, 2), 2, 1, map[float64]int{1: 2}},
		{"cycle 3", gen(Cycle, 3), 3, 3, map[float64]int{2: 3}},
		{"cycle 11", gen(Cycle, 11), 11, 11, map[float64]int{2: 11}},
		{"complete 2", gen(Complete, 2), 2, 1, map[float64]int{1: 2}},
		{"complete 9", gen(Complete, 9), 9, 36, map[float64]int{8: 9}},
		{"star 2", gen(Star, 2), 2, 1, map[float64]int{1: 2}},
		{"star 12", gen(Star, 12), 12, 11, map[float64]int{11: 1, 1: 11}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			if g.N() != tc.n || g.NumEdges() != tc.m {
				t.Fatalf("n=%d m=%d, want n=%d m=%d", g.N(), g.NumEdges(), tc.n, tc.m)
			}
			h := degreeHistogram(g)
			if len(h) != len(tc.degs) {
				t.Fatalf("degree histogram %v, want %v", h, tc.degs)
			}
			for d, c := range tc.degs {
				if h[d] != c {
					t.Fatalf("degree histogram %v, want %v", h, tc.degs)
				}
			}
			if c, _ := g.Components(); c != 1 {
				t.Errorf("%d components, want 1", c)
			}
			if !g.Unweighted() || g.DuplicatesMerged() != 0 {
				t.Error("generators must give simple unit-weight graphs")
			}
		})
	}
}

func TestGeneratorStructure(t *testing.T) {
	// Star: hub is index 0.
	s, _ := Star(6)
	if s.Degree(0) != 5 {
		t.Errorf("star hub degree %v", s.Degree(0))
	}
	// Grid: node r·cols+c adjacent to (r, c+1) and (r+1, c).
	g, _ := Grid(3, 4)
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			for r2 := 0; r2 < 3; r2++ {
				for c2 := 0; c2 < 4; c2++ {
					adj := abs(r-r2)+abs(c-c2) == 1
					if got := g.EdgeWeight(r*4+c, r2*4+c2) == 1; got != adj {
						t.Fatalf("grid (%d,%d)-(%d,%d): adjacent=%v, want %v", r, c, r2, c2, got, adj)
					}
				}
			}
		}
	}
	// Cycle: i ~ j iff |i−j| ≡ ±1 mod n.
	cy, _ := Cycle(7)
	for i := 0; i < 7; i++ {
		for j := 0; j < 7; j++ {
			adj := (i-j+7)%7 == 1 || (j-i+7)%7 == 1
			if (cy.EdgeWeight(i, j) == 1) != adj {
				t.Fatalf("cycle %d-%d", i, j)
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestGeneratorSizeErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func() (*Graph, error)
		param string
	}{
		{"path 1", func() (*Graph, error) { return Path(1) }, "n"},
		{"path -3", func() (*Graph, error) { return Path(-3) }, "n"},
		{"cycle 2", func() (*Graph, error) { return Cycle(2) }, "n"},
		{"complete 1", func() (*Graph, error) { return Complete(1) }, "n"},
		{"complete too large", func() (*Graph, error) { return Complete(1 << 20) }, "edges"},
		{"star 1", func() (*Graph, error) { return Star(1) }, "n"},
		{"star 0", func() (*Graph, error) { return Star(0) }, "n"},
		{"grid 0 rows", func() (*Graph, error) { return Grid(0, 5) }, "rows"},
		{"grid 0 cols", func() (*Graph, error) { return Grid(5, 0) }, "cols"},
		{"grid 1x1", func() (*Graph, error) { return Grid(1, 1) }, "rows×cols"},
		{"sbm no blocks", func() (*Graph, error) { g, _, err := SBM(nil, 0.5, 0.1, 1); return g, err }, "blocks"},
		{"sbm block 0", func() (*Graph, error) { g, _, err := SBM([]int{5, 0}, 0.5, 0.1, 1); return g, err }, "sizes"},
		{"sbm pin>1", func() (*Graph, error) { g, _, err := SBM([]int{5}, 1.5, 0, 1); return g, err }, "pin"},
		{"sbm pout NaN", func() (*Graph, error) { g, _, err := SBM([]int{5, 5}, 0.5, math.NaN(), 1); return g, err }, "pout"},
		{"sbm pout<0", func() (*Graph, error) { g, _, err := SBM([]int{5, 5}, 0.5, -0.1, 1); return g, err }, "pout"},
		{"sbm too dense", func() (*Graph, error) { g, _, err := SBM([]int{1 << 20}, 0.9, 0, 1); return g, err }, "edges"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.build()
			var se *SizeError
			if !errors.As(err, &se) || g != nil {
				t.Fatalf("got %v, %v; want a *SizeError", g, err)
			}
			if se.Param != tc.param {
				t.Errorf("SizeError names %q, want %q (%v)", se.Param, tc.param, err)
			}
		})
	}
}

func TestKarate(t *testing.T) {
	g, faction := Karate()
	// Zachary (1977): 34 members, 78 edges; the instructor (1) has 16
	// friends and the president (34) 17; the network has 45 triangles
	// (networkx triangles, cross-checked by hand).
	if g.N() != 34 || g.NumEdges() != 78 {
		t.Fatalf("n=%d m=%d, want 34, 78", g.N(), g.NumEdges())
	}
	deg := func(key string) float64 {
		i, ok := g.IndexOf(key)
		if !ok {
			t.Fatalf("no key %q", key)
		}
		return g.Degree(i)
	}
	if deg("1") != 16 || deg("34") != 17 || deg("33") != 12 {
		t.Errorf("degrees: 1→%v 34→%v 33→%v, want 16, 17, 12", deg("1"), deg("34"), deg("33"))
	}
	tri := 0
	g.ForEachEdge(func(i, j int, _ float64) {
		for k := j + 1; k < 34; k++ {
			if g.EdgeWeight(i, k) > 0 && g.EdgeWeight(j, k) > 0 {
				tri++
			}
		}
	})
	if tri != 45 {
		t.Errorf("%d triangles, want 45", tri)
	}
	if c, _ := g.Components(); c != 1 {
		t.Errorf("%d components", c)
	}
	sizes := [2]int{}
	for _, f := range faction {
		sizes[f]++
	}
	if sizes != [2]int{17, 17} || faction[0] != 0 || faction[33] != 1 {
		t.Errorf("faction sizes %v, f(1)=%d f(34)=%d; want 17/17 with 1 in 0 and 34 in 1", sizes, faction[0], faction[33])
	}
	// Sorted degree sequence (networkx karate_club_graph).
	want := []float64{1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 6, 6, 9, 10, 12, 16, 17}
	got := slices.Clone(g.Degrees())
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("degree sequence %v", got)
	}
}

func TestSBMDensities(t *testing.T) {
	// Sizes 300, 200, 100: 44850 + 19900 + 4950 = 69700 within pairs,
	// 300·200 + 300·100 + 200·100 = 110000 between pairs. Each observed
	// count is Binomial(K, p): accept within 5 standard deviations
	// (two-sided failure probability < 1e-6 per count).
	sizes := []int{300, 200, 100}
	pIn, pOut := 0.05, 0.004
	for _, seed := range []uint64{1, 2, 3} {
		g, block, err := SBM(sizes, pIn, pOut, seed)
		if err != nil {
			t.Fatal(err)
		}
		if g.N() != 600 || len(block) != 600 || block[0] != 0 || block[299] != 0 || block[300] != 1 || block[599] != 2 {
			t.Fatalf("blocks not consecutive: n=%d", g.N())
		}
		var cnt [3][3]int
		g.ForEachEdge(func(i, j int, w float64) {
			if w != 1 {
				t.Fatalf("weight %v", w)
			}
			cnt[block[i]][block[j]]++
		})
		for a := range 3 {
			for b := a; b < 3; b++ {
				k, p := float64(sizes[a]*sizes[b]), pOut
				obs := cnt[a][b] + cnt[b][a]
				if a == b {
					k, p, obs = float64(sizes[a]*(sizes[a]-1)/2), pIn, cnt[a][a]
				}
				mean, sd := k*p, math.Sqrt(k*p*(1-p))
				if math.Abs(float64(obs)-mean) > 5*sd {
					t.Errorf("seed %d blocks (%d,%d): %d edges, expected %.1f ± %.1f", seed, a, b, obs, mean, sd)
				}
			}
		}
	}
	// Aggregate over one large instance: G(n, p) with n = 4000, p = 0.01.
	g, _, err := SBM([]int{4000}, 0.01, 0, 9)
	if err != nil {
		t.Fatal(err)
	}
	k := 4000.0 * 3999 / 2
	if mean, sd := k*0.01, math.Sqrt(k*0.01*0.99); math.Abs(float64(g.NumEdges())-mean) > 5*sd {
		t.Errorf("G(4000, 0.01): %d edges, expected %.0f ± %.0f", g.NumEdges(), mean, sd)
	}
}

func TestSBMUniformPairs(t *testing.T) {
	// Every pair of a small block must be reachable by the geometric
	// skipping: over many seeds each of the 15 pairs of K_6 appears with
	// frequency p = 0.3 (5 sd bounds on Binomial(2000, 0.3)).
	const reps = 2000
	var hits [6][6]int
	for seed := range uint64(reps) {
		g, _, err := SBM([]int{6}, 0.3, 0, seed)
		if err != nil {
			t.Fatal(err)
		}
		g.ForEachEdge(func(i, j int, _ float64) { hits[i][j]++ })
	}
	mean, sd := reps*0.3, math.Sqrt(reps*0.3*0.7)
	for i := 0; i < 6; i++ {
		for j := i + 1; j < 6; j++ {
			if math.Abs(float64(hits[i][j])-mean) > 5*sd {
				t.Errorf("pair (%d,%d) chosen %d times, expected %.0f ± %.0f", i, j, hits[i][j], mean, sd)
			}
		}
	}
}

func TestSBMDeterminismAndExtremes(t *testing.T) {
	edgesOf := func(g *Graph) [][3]float64 {
		var out [][3]float64
		g.ForEachEdge(func(i, j int, w float64) { out = append(out, [3]float64{float64(i), float64(j), w}) })
		return out
	}
	a, _, _ := SBM([]int{100, 150}, 0.1, 0.01, 42)
	b, _, _ := SBM([]int{100, 150}, 0.1, 0.01, 42)
	c, _, _ := SBM([]int{100, 150}, 0.1, 0.01, 43)
	if !slices.Equal(edgesOf(a), edgesOf(b)) {
		t.Error("same seed gave different graphs")
	}
	if slices.Equal(edgesOf(a), edgesOf(c)) {
		t.Error("different seeds gave the same graph")
	}
	// p = 1 within, 0 between: disjoint cliques, one component each.
	g, _, err := SBM([]int{4, 5, 6}, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumEdges() != 6+10+15 {
		t.Errorf("cliques: %d edges, want 31", g.NumEdges())
	}
	if cnt, _ := g.Components(); cnt != 3 {
		t.Errorf("cliques: %d components, want 3", cnt)
	}
	// p = 0 within, 1 between: complete bipartite K_{4,5}.
	g, _, _ = SBM([]int{4, 5}, 0, 1, 1)
	if g.NumEdges() != 20 {
		t.Errorf("K_4,5: %d edges", g.NumEdges())
	}
	// p = 0 everywhere: n isolated nodes.
	g, _, _ = SBM([]int{3, 3}, 0, 0, 1)
	if cnt, _ := g.Components(); g.NumEdges() != 0 || cnt != 6 {
		t.Errorf("empty SBM: %d edges, %d components", g.NumEdges(), cnt)
	}
	// Tiny p must not overflow the skip.
	g, _, err = SBM([]int{1000, 1000}, 1e-300, 5e-324, 1)
	if err != nil || g.NumEdges() != 0 {
		t.Errorf("tiny p: %v, %d edges", err, g.NumEdges())
	}
}

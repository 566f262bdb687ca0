package community

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// perturb returns g with a fraction frac of its edges removed and as many
// random new edges added (chosen by a PCG stream seeded by seed).
func perturb(t testing.TB, g *laplacian.Graph, frac float64, seed uint64) *laplacian.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var edges []laplacian.Edge
	removed := 0
	g.ForEachEdge(func(i, j int, w float64) {
		if rng.Float64() < frac {
			removed++
			return
		}
		edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w})
	})
	for added := 0; added < removed; {
		u, v := rng.IntN(g.N()), rng.IntN(g.N())
		if u == v || g.EdgeWeight(u, v) != 0 {
			continue
		}
		edges = append(edges, laplacian.Edge{U: int32(u), V: int32(v), Weight: 1})
		added++
	}
	h, err := laplacian.FromEdges(g.N(), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// improvingMove returns a node and a neighbouring community that node
// would raise Q by more than tol by moving to, found by recomputing Q
// (gonum's community.Q, independent of this package) for every node and
// every community of its neighbours; ok is false when there is none.
func improvingMove(g *laplacian.Graph, part []int, gamma, tol float64) (node, to int, gain float64, ok bool) {
	q0 := modularity(g, part, gamma)
	moved := append([]int(nil), part...)
	for v := 0; v < g.N(); v++ {
		cols, _ := g.Neighbors(v)
		tried := map[int]bool{part[v]: true}
		for _, u := range cols {
			c := part[u]
			if tried[c] {
				continue
			}
			tried[c] = true
			moved[v] = c
			if dq := modularity(g, Canonicalised(moved), gamma) - q0; dq > tol {
				return v, c, dq, true
			}
		}
		moved[v] = part[v]
	}
	return 0, 0, 0, false
}

// Canonicalised is Canonical without the count (gonum's Q wants dense ids).
func Canonicalised(p []int) []int { q, _ := Canonical(nil, p); return q }

func TestUpdateIsAValidLeidenPartition(t *testing.T) {
	for _, c := range []struct {
		spec string
		frac float64
	}{
		{"sbm:sizes=120x100x80,pin=0.08,pout=0.005", 0.01},
		{"sbm:sizes=120x100x80,pin=0.08,pout=0.005", 0.05},
		{"pa:n=300,m=3,seed=2", 0.02},
	} {
		g0, _ := gen(t, c.spec)
		opt := LeidenOptions{Seed: 3}
		p0, err := Leiden(g0, opt)
		if err != nil {
			t.Fatal(err)
		}
		g1 := perturb(t, g0, c.frac, 9)
		prev, changed := Carry(g0, p0, g1)
		if len(changed) == 0 {
			t.Fatalf("%s: the perturbation changed no node", c.spec)
		}
		part, err := Update(g1, prev, changed, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !connected(g1, part) {
			t.Errorf("%s %.0f%%: a community is disconnected", c.spec, 100*c.frac)
		}
		// Local moving re-checks the neighbours of a node that moved, not
		// every member of a community whose strength changed, so a move
		// can gain up to about k_v·ΔK/(2m)² ≪ 1e-5.
		if v, to, dq, ok := improvingMove(g1, part, 1, 1e-5); ok {
			t.Errorf("%s %.0f%%: moving node %d to community %d raises Q by %.3g", c.spec, 100*c.frac, v, to, dq)
		}
		fresh, _ := Leiden(g1, opt)
		qu, qf := Modularity(g1, part, 1), Modularity(g1, fresh, 1)
		t.Logf("%s %.0f%%: %d changed nodes, Q update %.5f fresh %.5f", c.spec, 100*c.frac, len(changed), qu, qf)
	}
}

// Carry finds exactly the endpoints of added and removed edges, and a
// graph compared with itself has none.
func TestCarry(t *testing.T) {
	g0, _ := gen(t, "pa:n=200,m=2,seed=4")
	part := make([]int, g0.N())
	for i := range part {
		part[i] = i % 7
	}
	prev, changed := Carry(g0, part, g0)
	if len(changed) != 0 {
		t.Errorf("unchanged graph: changed %v", changed)
	}
	for i := range prev {
		if prev[i] != part[i] {
			t.Fatalf("node %d carried %d, want %d", i, prev[i], part[i])
		}
	}
	g1 := perturb(t, g0, 0.05, 1)
	want := map[int32]bool{}
	for i := 0; i < g0.N(); i++ {
		for j := 0; j < g0.N(); j++ {
			if i != j && g0.EdgeWeight(i, j) != g1.EdgeWeight(i, j) {
				want[int32(i)] = true
			}
		}
	}
	_, changed = Carry(g0, part, g1)
	if len(changed) != len(want) {
		t.Errorf("changed %d nodes, want %d", len(changed), len(want))
	}
	for _, v := range changed {
		if !want[v] {
			t.Errorf("node %d reported changed", v)
		}
	}
}

// splitDirty against union–find: every dirty community becomes its
// connected pieces, the piece of its lowest node keeps the label, the
// others take the lowest unused labels in order of their lowest nodes, and
// the result is the same for every number of workers.
func TestSplitDirty(t *testing.T) {
	g, _ := gen(t, "rgg:n=3000,radius=0.02,seed=5") // sparse: many small pieces
	lv := levelOf(g)
	n := lv.n
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 5 {
		comm := make([]int32, n)
		for v := range comm {
			comm[v] = int32(rng.IntN(40)) * 7 // labels spread over 0..n−1, most unused
		}
		dirty := make([]bool, n)
		for c := range dirty {
			dirty[c] = trial == 0 || rng.IntN(2) == 0
		}
		want, wantActive := splitOracle(lv, comm, dirty)
		for _, workers := range []int{1, 2, 8} {
			got := append([]int32(nil), comm...)
			d := append([]bool(nil), dirty...)
			active := splitDirty(lv, got, d, workers)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d, %d workers: labels differ from union–find", trial, workers)
			}
			if (active == nil) != (wantActive == nil) || active != nil && !slices.Equal(active, wantActive) {
				t.Fatalf("trial %d, %d workers: active nodes differ", trial, workers)
			}
			if slices.Contains(d, true) {
				t.Fatalf("trial %d: dirty not cleared", trial)
			}
		}
		if trial == 0 && wantActive == nil {
			t.Fatal("the test partition split nothing: it checks nothing")
		}
	}
}

// splitOracle is splitDirty by union–find over the links inside each
// dirty community.
func splitOracle(lv *level, comm []int32, dirty []bool) ([]int32, []bool) {
	n := lv.n
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for v := range n {
		for _, u := range lv.col[lv.rowPtr[v]:lv.rowPtr[v+1]] {
			if comm[u] == comm[v] && dirty[comm[v]] {
				if a, b := find(v), find(int(u)); a != b {
					parent[max(a, b)] = min(a, b) // the root is the piece's lowest node
				}
			}
		}
	}
	out := append([]int32(nil), comm...)
	used := make([]bool, n)
	for _, c := range comm {
		used[c] = true
	}
	lowest := map[int32]int{} // lowest node of each community
	for v := n - 1; v >= 0; v-- {
		lowest[comm[v]] = v
	}
	label := map[int]int32{}
	var active []bool
	free := int32(0)
	for v := range n {
		c := comm[v]
		if !dirty[c] {
			continue
		}
		r := find(v)
		if r == find(lowest[c]) {
			continue
		}
		if _, ok := label[r]; !ok {
			for used[free] {
				free++
			}
			used[free], label[r] = true, free
		}
		out[v] = label[r]
		if active == nil {
			active = make([]bool, n)
		}
		active[v] = true
	}
	return out, active
}

package laplacian

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/path"
)

// bfs returns hop distances from s (−1 when unreachable), written
// directly against the CSR rows.
func bfs(g *Graph, s int) []int {
	dist := make([]int, g.N())
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	queue := []int{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		cols, _ := g.Neighbors(u)
		for _, v := range cols {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, int(v))
			}
		}
	}
	return dist
}

func TestDijkstraEqualsBFSHops(t *testing.T) {
	grid, _ := Grid(6, 8)
	kar, _ := Karate()
	sbm, _, _ := SBM([]int{150, 150}, 0.03, 0.002, 5)
	split, _ := FromEdges(6, nil, []Edge{{0, 1, 1}, {1, 2, 1}, {3, 4, 1}}, Options{})
	for name, g := range map[string]*Graph{"grid": grid, "karate": kar, "sbm": sbm, "disconnected": split} {
		for _, s := range []int{0, g.N() / 2, g.N() - 1} {
			sp := path.DijkstraFrom(g.Node(int64(s)), g)
			hops := bfs(g, s)
			for v := 0; v < g.N(); v++ {
				d := sp.WeightTo(int64(v))
				if hops[v] < 0 {
					if !math.IsInf(d, 1) {
						t.Errorf("%s: %d→%d unreachable but Dijkstra says %v", name, s, v, d)
					}
					continue
				}
				if d != float64(hops[v]) {
					t.Fatalf("%s: %d→%d Dijkstra %v, BFS %d", name, s, v, d, hops[v])
				}
			}
		}
	}
	// Grid closed form: Manhattan distance.
	sp := path.DijkstraFrom(grid.Node(0), grid)
	for r := 0; r < 6; r++ {
		for c := 0; c < 8; c++ {
			if d := sp.WeightTo(int64(r*8 + c)); d != float64(r+c) {
				t.Fatalf("grid distance to (%d,%d) = %v, want %d", r, c, d, r+c)
			}
		}
	}
}

func TestDijkstraWeighted(t *testing.T) {
	// Triangle with a heavy direct edge: 0–2 costs 5 directly, 1+1.5 via 1.
	g, _ := FromEdges(3, nil, []Edge{{0, 1, 1}, {1, 2, 1.5}, {0, 2, 5}}, Options{})
	sp := path.DijkstraFrom(g.Node(0), g)
	if d := sp.WeightTo(2); d != 2.5 {
		t.Errorf("weighted distance %v, want 2.5", d)
	}
}

func TestModularizeKarate(t *testing.T) {
	g, faction := Karate()
	// Modularity of Zachary's two clubs, unweighted:
	// networkx 3.6.1 community.modularity(G, clubs, weight=None) = 0.3582347140039448.
	clubs := make([][]graph.Node, 2)
	for i, f := range faction {
		clubs[f] = append(clubs[f], g.Node(int64(i)))
	}
	if q := community.Q(g, clubs, 1); math.Abs(q-0.3582347140039448) > 1e-12 {
		t.Errorf("Q(factions) = %v, want 0.3582347140 (networkx)", q)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		r := community.Modularize(g, 1, rand.NewPCG(seed, seed))
		comms := r.Communities()
		q := community.Q(g, comms, 1)
		// The karate club's maximum modularity is 0.4198 (Brandes et al.
		// 2008); Louvain reaches ≥ 0.40 on it. Any positive Q shows the
		// weights reach gonum; ≥ 0.38 shows they are the right ones.
		if q < 0.38 || q > 0.4198+1e-4 {
			t.Errorf("seed %d: Louvain Q = %v, want in [0.38, 0.4198]", seed, q)
		}
		seen := 0
		for _, c := range comms {
			seen += len(c)
		}
		if seen != 34 {
			t.Errorf("communities cover %d nodes", seen)
		}
	}
}

func TestGonumConventions(t *testing.T) {
	g, _ := FromEdges(4, nil, []Edge{{0, 1, 2}, {1, 2, 0.5}}, Options{})
	if w, ok := g.Weight(1, 1); w != 0 || !ok {
		t.Errorf("Weight(x,x) = %v, %v; want 0, true", w, ok)
	}
	if w, ok := g.Weight(0, 2); !math.IsInf(w, 1) || ok {
		t.Errorf("Weight(absent) = %v, %v; want +Inf, false", w, ok)
	}
	if w, ok := g.Weight(2, 1); w != 0.5 || !ok {
		t.Errorf("Weight(2,1) = %v, %v", w, ok)
	}
	if _, ok := g.Weight(9, 9); ok {
		t.Error("Weight of a missing node reported ok")
	}
	if g.Edge(0, 2) != nil || g.WeightedEdge(0, 3) != nil || g.EdgeBetween(5, 0) != nil {
		t.Error("absent edge must be a nil interface")
	}
	e := g.WeightedEdgeBetween(1, 0)
	if e == nil || e.From().ID() != 1 || e.To().ID() != 0 || e.Weight() != 2 {
		t.Fatalf("edge %v", e)
	}
	if r := e.ReversedEdge(); r.From().ID() != 0 || r.To().ID() != 1 {
		t.Error("ReversedEdge")
	}
	if !g.HasEdgeBetween(2, 1) || g.HasEdgeBetween(0, 3) || g.HasEdgeBetween(-1, 0) {
		t.Error("HasEdgeBetween")
	}
	if g.Node(3) == nil || g.Node(4) != nil || g.Node(-1) != nil {
		t.Error("Node")
	}
	nodes := g.Nodes()
	if nodes.Len() != 4 {
		t.Errorf("Nodes().Len() = %d", nodes.Len())
	}
	var ids []int64
	for nodes.Next() {
		ids = append(ids, nodes.Node().ID())
	}
	if len(ids) != 4 || ids[3] != 3 || nodes.Len() != 0 || nodes.Node() != nil {
		t.Errorf("Nodes iterated %v", ids)
	}
	nodes.Reset()
	if !nodes.Next() || nodes.Node().ID() != 0 || nodes.Len() != 3 {
		t.Error("Reset")
	}
	from := g.From(1)
	if from.Len() != 2 {
		t.Errorf("From(1).Len() = %d", from.Len())
	}
	ids = ids[:0]
	for from.Next() {
		ids = append(ids, from.Node().ID())
	}
	if len(ids) != 2 || ids[0] != 0 || ids[1] != 2 {
		t.Errorf("From(1) = %v", ids)
	}
	if g.From(3).Len() != 0 || g.From(3).Next() || g.From(7).Len() != 0 {
		t.Error("From of isolated or missing node")
	}
	if n := len(graph.NodesOf(g.Nodes())); n != 4 {
		t.Errorf("NodesOf = %d", n)
	}
}

package job

import (
	"sort"

	"github.com/graphcloak/graphcloak/laplacian"
)

// canonicalGraph is g with its nodes in key order, and perm[i] the
// canonical index of g's node i. A simulation seeded on it — sources
// drawn by index, noise drawn node by node, Leiden's order of visits —
// is the same whatever order the graph was read in: an edge list and
// the same graph from Neo4j give the same forecast, so the same verdict.
// Keys are unique, so the order is total.
func canonicalGraph(g *laplacian.Graph) (*laplacian.Graph, []int, error) {
	n := g.N()
	keys := append([]string(nil), g.Keys()...)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	perm := make([]int, n)
	sorted := make([]string, n)
	for c, i := range order {
		perm[i], sorted[c] = c, keys[i]
	}
	edges := make([]laplacian.Edge, 0, g.NumEdges())
	g.ForEachEdge(func(i, j int, w float64) {
		u, v := perm[i], perm[j]
		if u > v {
			u, v = v, u
		}
		edges = append(edges, laplacian.Edge{U: int32(u), V: int32(v), Weight: w})
	})
	// ForEachEdge's order follows g's indices: sort so the build is the
	// same from any order.
	sort.Slice(edges, func(a, b int) bool {
		if edges[a].U != edges[b].U {
			return edges[a].U < edges[b].U
		}
		return edges[a].V < edges[b].V
	})
	cg, err := laplacian.FromEdges(n, sorted, edges, laplacian.Options{})
	if err != nil {
		return nil, nil, err
	}
	return cg, perm, nil
}

// canonicalPartition is part in canonicalGraph's order (perm), its
// community ids renumbered by first appearance in that order.
func canonicalPartition(part, perm []int) []int {
	out := make([]int, len(part))
	for i, c := range part {
		out[perm[i]] = c
	}
	ids := map[int]int{}
	for i, c := range out {
		id, ok := ids[c]
		if !ok {
			id = len(ids)
			ids[c] = id
		}
		out[i] = id
	}
	return out
}

// CanonicalGraph is g in key order and perm[i] the key-order index of g's
// node i (canonicalGraph), for commands that simulate on a graph they
// loaded themselves (plan): their forecasts are then the same whatever
// order the graph was read in (an edge list, a permuted one, Neo4j).
func CanonicalGraph(g *laplacian.Graph) (*laplacian.Graph, []int, error) { return canonicalGraph(g) }

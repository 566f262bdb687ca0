package job

import (
	"github.com/graphcloak/graphcloak/laplacian"
)

// canonicalGraph is g with its nodes in key order, and perm[i] the
// canonical index of g's node i (laplacian.SortedByKey). A simulation seeded
// on it — sources drawn by index, noise drawn node by node, Leiden's order
// of visits — is the same whatever order the graph was read in: an edge
// list and the same graph from Neo4j give the same forecast, so the same
// verdict.
func canonicalGraph(g *laplacian.Graph) (*laplacian.Graph, []int, error) {
	return laplacian.SortedByKey(g)
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

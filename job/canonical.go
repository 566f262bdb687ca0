package job

import (
	"github.com/graphcloak/graphcloak/community"
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
// communities named by community.Named on cg, the graph in that order —
// the names every command gives them (nil cg: renumbered in cg's index
// order, enough for a cache key).
func canonicalPartition(cg *laplacian.Graph, part, perm []int) []int {
	out := make([]int, len(part))
	for i, c := range part {
		out[perm[i]] = c
	}
	part, _ = community.Canonical(cg, out)
	return part
}

// CanonicalGraph is g in key order and perm[i] the key-order index of g's
// node i (canonicalGraph), for commands that simulate on a graph they
// loaded themselves (plan): their forecasts are then the same whatever
// order the graph was read in (an edge list, a permuted one, Neo4j).
func CanonicalGraph(g *laplacian.Graph) (*laplacian.Graph, []int, error) { return canonicalGraph(g) }

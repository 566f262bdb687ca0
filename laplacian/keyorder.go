package laplacian

import (
	"slices"
	"strings"
)

// SortedByKey returns g with its nodes in key order (keys compared as
// strings, generators' too), and perm[i] the key-order
// index of g's node i. Keys are unique, so the order is total: the same
// graph read in any order (an edge list, a permuted one, Neo4j) has one
// key-order form, and so one fingerprint — what a stored certificate names.
func SortedByKey(g *Graph) (*Graph, []int, error) {
	n := g.N()
	keys := g.Keys()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	perm := make([]int, n)
	sorted := make([]string, n)
	for c, i := range order {
		perm[i], sorted[c] = c, keys[i]
	}
	cg, err := FromEdges(n, sorted, edgesInOrder(g, perm), Options{})
	if err != nil {
		return nil, nil, err
	}
	cg.merges = g.merges // how g's input became its edges: the same graph's
	return cg, perm, nil
}

// edgesInOrder are g's edges renamed by perm, each as (U < V), sorted by
// U then V so the build is the same from any order: a counting sort by U
// (g's rows are its nodes in its own order, so an edge's U is known from
// its row) and each U's few edges sorted by V — a general sort of the
// 10⁵–10⁶ edges took 60 ms of plan --estimate's second on e-mail Enron.
func edgesInOrder(g *Graph, perm []int) []Edge {
	n := g.N()
	start := make([]int, n+1) // start[u+1]: the edges whose smaller end is u
	g.ForEachEdge(func(i, j int, _ float64) {
		start[min(perm[i], perm[j])+1]++
	})
	for u := range n {
		start[u+1] += start[u]
	}
	edges := make([]Edge, start[n])
	next := slices.Clone(start[:n])
	g.ForEachEdge(func(i, j int, w float64) {
		u, v := perm[i], perm[j]
		if u > v {
			u, v = v, u
		}
		edges[next[u]] = Edge{U: int32(u), V: int32(v), Weight: w}
		next[u]++
	})
	for u := range n {
		if row := edges[start[u]:start[u+1]]; len(row) > 1 {
			slices.SortFunc(row, func(a, b Edge) int { return int(a.V - b.V) })
		}
	}
	return edges
}

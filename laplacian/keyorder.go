package laplacian

import "sort"

// SortedByKey returns g with its nodes in key order (keys compared as
// strings, generators' too), and perm[i] the key-order
// index of g's node i. Keys are unique, so the order is total: the same
// graph read in any order (an edge list, a permuted one, Neo4j) has one
// key-order form, and so one fingerprint — what a stored certificate names.
func SortedByKey(g *Graph) (*Graph, []int, error) {
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
	edges := make([]Edge, 0, g.NumEdges())
	g.ForEachEdge(func(i, j int, w float64) {
		u, v := perm[i], perm[j]
		if u > v {
			u, v = v, u
		}
		edges = append(edges, Edge{U: int32(u), V: int32(v), Weight: w})
	})
	// ForEachEdge's order follows g's indices: sort so the build is the
	// same from any order.
	sort.Slice(edges, func(a, b int) bool {
		if edges[a].U != edges[b].U {
			return edges[a].U < edges[b].U
		}
		return edges[a].V < edges[b].V
	})
	cg, err := FromEdges(n, sorted, edges, Options{})
	if err != nil {
		return nil, nil, err
	}
	cg.merges = g.merges // how g's input became its edges: the same graph's
	return cg, perm, nil
}

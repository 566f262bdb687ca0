package community

import "github.com/graphcloak/graphcloak/laplacian"

// SplitConnected returns a partition in which every community of part is
// replaced by the connected components of the subgraph it induces. Ids are
// dense and assigned in order of each new community's lowest node index, so
// the result is canonical: two partitions with the same blocks give
// identical slices. Negative ids in part are treated as ordinary labels.
//
// SplitConnected panics if len(part) != g.N().
func SplitConnected(g *laplacian.Graph, part []int) []int {
	n := g.N()
	if len(part) != n {
		panic("community: partition length does not match the graph")
	}
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	next := 0
	stack := make([]int, 0, 64)
	for s := 0; s < n; s++ {
		if out[s] >= 0 {
			continue
		}
		out[s] = next
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cols, _ := g.Neighbors(u)
			for _, c := range cols {
				v := int(c)
				if out[v] < 0 && part[v] == part[u] {
					out[v] = next
					stack = append(stack, v)
				}
			}
		}
		next++
	}
	return out
}

// Canonical relabels part densely in order of each community's first
// node in g's key order (laplacian.Graph.KeyOrder: integer keys as
// numbers, other keys as strings; g nil or already in key order: index
// order), without splitting anything. It returns the relabelled partition
// and the number of communities. It is the one rule that names a
// community: Leiden and Louvain label by it, and plan, locate and the
// private answer rename by it, so the same partition of the same graph
// has the same names in every command whatever order the graph's nodes
// were read or rearranged in (a file, a dataset, Neo4j, the key-order
// copy plan simulates on).
func Canonical(g *laplacian.Graph, part []int) ([]int, int) {
	var order []int32
	if g != nil {
		order = g.KeyOrder()
	}
	ids := make(map[int]int)
	out := make([]int, len(part))
	name := func(i int) {
		id, ok := ids[part[i]]
		if !ok {
			id = len(ids)
			ids[part[i]] = id
		}
		out[i] = id
	}
	if order == nil {
		for i := range part {
			name(i)
		}
	}
	for _, i := range order {
		name(int(i))
	}
	return out, len(ids)
}

package laplacian

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// CuthillMcKee returns a breadth-first ordering of the nodes, perm[p] = the
// node placed at position p: each component in turn, from one of its nodes
// of least degree, the neighbours of a node taken by increasing degree
// (E. Cuthill and J. McKee, "Reducing the bandwidth of sparse symmetric
// matrices", ACM '69). Neighbours get nearby positions, so an operator
// applied to vectors indexed in this order reads them with locality; the
// node order a graph arrives in (a database's, a generator's) often has
// none.
func (g *Graph) CuthillMcKee() []int32 {
	n := g.n
	perm := make([]int32, 0, n)
	seen := make([]bool, n)
	// Component start nodes: least degree first within each component.
	byDegree := make([]int32, n)
	for i := range byDegree {
		byDegree[i] = int32(i)
	}
	sort.SliceStable(byDegree, func(a, b int) bool { return g.degree[byDegree[a]] < g.degree[byDegree[b]] })
	var nbr []int32
	for _, s := range byDegree {
		if seen[s] {
			continue
		}
		seen[s] = true
		head := len(perm)
		perm = append(perm, s)
		for ; head < len(perm); head++ {
			u := perm[head]
			nbr = nbr[:0]
			for _, v := range g.col[g.rowPtr[u]:g.rowPtr[u+1]] {
				if !seen[v] {
					seen[v] = true
					nbr = append(nbr, v)
				}
			}
			slices.SortStableFunc(nbr, func(a, b int32) int {
				switch da, db := g.degree[a], g.degree[b]; {
				case da < db:
					return -1
				case da > db:
					return 1
				}
				return 0
			})
			perm = append(perm, nbr...)
		}
	}
	return perm
}

// Permute returns the graph with node perm[p] renamed p (perm a permutation
// of 0..n−1, as CuthillMcKee returns). Only the structure is carried: the
// result has default keys, so a caller maps an index p back through
// perm[p]. It costs O(n + m log d_max) and one copy of the CSR arrays.
func (g *Graph) Permute(perm []int32) *Graph {
	n := g.n
	inv := make([]int32, n)
	for p, v := range perm {
		inv[v] = int32(p)
	}
	h := &Graph{n: n, edges: g.edges, merges: g.merges}
	h.rowPtr = make([]int64, n+1)
	for p, v := range perm {
		h.rowPtr[p+1] = h.rowPtr[p] + (g.rowPtr[v+1] - g.rowPtr[v])
	}
	h.col = make([]int32, len(g.col))
	if g.weight != nil {
		h.weight = make([]float64, len(g.weight))
	}
	for p, v := range perm {
		lo, hi := g.rowPtr[v], g.rowPtr[v+1]
		c := h.col[h.rowPtr[p]:h.rowPtr[p+1]]
		for k, u := range g.col[lo:hi] {
			c[k] = inv[u]
		}
		if h.weight == nil {
			slices.Sort(c)
			continue
		}
		w := h.weight[h.rowPtr[p]:h.rowPtr[p+1]]
		copy(w, g.weight[lo:hi])
		sortRow(c, w)
	}
	h.degree = make([]float64, n)
	for p, v := range perm {
		h.degree[p] = g.degree[v]
	}
	h.maxDeg = g.maxDeg
	return h
}

// KeyOrder returns the nodes by ascending key: perm[p] is the node whose
// key comes p-th, as Permute takes it. Keys that are all integers (as
// strconv.Itoa writes them) are ordered as numbers — the order of a
// generator's nodes, whose keys are their indices — and any others in
// byte order. It returns nil when the graph is in that order already (a
// generator's always is), so that a computation run on
// g.Permute(KeyOrder()) depends on the graph alone, not on the order its
// nodes were read in (an edge list, the same list reordered, Neo4j, or
// SortedByKey's byte order: the power grid read from its file and the
// same graph in byte order gave Leiden 41 and 40 communities when
// integer keys were compared as bytes).
func (g *Graph) KeyOrder() []int32 {
	if !g.custom {
		return nil
	}
	order := func(a, b int32) int { return strings.Compare(g.keys[a], g.keys[b]) }
	if nums, ok := integerKeys(g.keys); ok {
		order = func(a, b int32) int { return cmp.Compare(nums[a], nums[b]) }
	}
	sorted := true
	for i := 1; i < g.n && sorted; i++ {
		sorted = order(int32(i-1), int32(i)) <= 0
	}
	if sorted {
		return nil
	}
	perm := make([]int32, g.n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, order)
	return perm
}

// integerKeys returns the keys as integers when every one is an integer
// written as strconv.Itoa writes it (no sign but a minus, no leading zero).
func integerKeys(keys []string) ([]int, bool) {
	nums := make([]int, len(keys))
	for i, k := range keys {
		v, err := strconv.Atoi(k)
		if err != nil || strconv.Itoa(v) != k {
			return nil, false
		}
		nums[i] = v
	}
	return nums, true
}

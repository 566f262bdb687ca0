package laplacian

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Graph is a compact weighted undirected graph in CSR form.
// It is immutable once built and safe for concurrent reads.
type Graph struct {
	keys    []string
	index   map[string]int32
	rowPtr  []int64   // len n+1
	col     []int32   // len 2|E|, sorted within a row
	weight  []float64 // len 2|E|; nil when every weight is 1
	degree  []float64 // weighted degree d_i
	edges   int
	merged  int
	maxDeg  float64
	compCnt int
	comp    []int32
}

// Edge is an undirected edge between node indices U and V.
type Edge struct {
	U, V   int32
	Weight float64
}

// Sentinel errors for invalid graphs; wrapped with details by the builder.
var (
	ErrEmptyGraph     = errors.New("laplacian: empty graph")
	ErrSelfLoop       = errors.New("laplacian: self-loop")
	ErrBadWeight      = errors.New("laplacian: weight must be positive and finite")
	ErrNodeOutOfRange = errors.New("laplacian: node index out of range")
	ErrDuplicateKey   = errors.New("laplacian: duplicate node key")
	ErrDuplicateEdge  = errors.New("laplacian: duplicate edge")
)

// EdgeError reports which edge made a graph invalid.
type EdgeError struct {
	U, V   string
	Weight float64
	Err    error
}

func (e *EdgeError) Error() string {
	return fmt.Sprintf("%v: edge (%s, %s) weight %v", e.Err, e.U, e.V, e.Weight)
}
func (e *EdgeError) Unwrap() error { return e.Err }

// Options control how FromEdges treats imperfect input. The zero value
// means the defaults.
type Options struct {
	// RejectDuplicates makes a repeated edge an error. Default: duplicates
	// are merged by summing weights (a multigraph's Laplacian).
	RejectDuplicates bool
}

// FromEdges builds a graph on len(keys) nodes. keys may be nil, in which
// case node i has key strconv.Itoa(i) and n gives the node count.
// It validates every edge: indices in range, no self-loops, weights
// positive and finite (a zero weight is rejected: drop the edge instead).
func FromEdges(n int, keys []string, edges []Edge, opt Options) (*Graph, error) {
	if keys != nil {
		n = len(keys)
	}
	if n <= 0 {
		return nil, ErrEmptyGraph
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("laplacian: %d nodes exceed the int32 index range", n)
	}
	if keys == nil {
		keys = make([]string, n)
		for i := range keys {
			keys[i] = strconv.Itoa(i)
		}
	}
	index := make(map[string]int32, n)
	for i, k := range keys {
		if _, dup := index[k]; dup {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateKey, k)
		}
		index[k] = int32(i)
	}
	name := func(i int32) string {
		if i >= 0 && int(i) < n {
			return keys[i]
		}
		return strconv.Itoa(int(i))
	}
	counts := make([]int64, n+1)
	unit := true
	for _, e := range edges {
		switch {
		case e.U < 0 || int(e.U) >= n || e.V < 0 || int(e.V) >= n:
			return nil, &EdgeError{name(e.U), name(e.V), e.Weight, ErrNodeOutOfRange}
		case e.U == e.V:
			return nil, &EdgeError{name(e.U), name(e.V), e.Weight, ErrSelfLoop}
		case !(e.Weight > 0) || math.IsInf(e.Weight, 0):
			return nil, &EdgeError{name(e.U), name(e.V), e.Weight, ErrBadWeight}
		}
		if e.Weight != 1 {
			unit = false
		}
		counts[e.U+1]++
		counts[e.V+1]++
	}
	for i := 0; i < n; i++ {
		counts[i+1] += counts[i]
	}
	col := make([]int32, counts[n])
	w := make([]float64, counts[n])
	next := append([]int64(nil), counts[:n]...)
	for _, e := range edges {
		col[next[e.U]], w[next[e.U]] = e.V, e.Weight
		next[e.U]++
		col[next[e.V]], w[next[e.V]] = e.U, e.Weight
		next[e.V]++
	}
	// Sort each row and merge duplicates in place.
	g := &Graph{keys: keys, index: index, degree: make([]float64, n)}
	g.rowPtr = make([]int64, n+1)
	out := int64(0)
	merged := 0
	for i := 0; i < n; i++ {
		lo, hi := counts[i], counts[i+1]
		sortRow(col[lo:hi], w[lo:hi])
		start := out
		for p := lo; p < hi; p++ {
			if out > start && col[out-1] == col[p] {
				if opt.RejectDuplicates {
					return nil, &EdgeError{keys[i], keys[col[p]], w[p], ErrDuplicateEdge}
				}
				w[out-1] += w[p]
				unit = false
				merged++
				continue
			}
			col[out], w[out] = col[p], w[p]
			out++
		}
		g.rowPtr[i+1] = out
		d := 0.0
		for p := start; p < out; p++ {
			d += w[p]
		}
		g.degree[i] = d
		g.maxDeg = math.Max(g.maxDeg, d)
	}
	g.col = col[:out:out]
	if !unit {
		g.weight = w[:out:out]
	}
	g.edges = int(out / 2)
	g.merged = merged / 2
	g.comp, g.compCnt = components(g)
	return g, nil
}

type rowSorter struct {
	c []int32
	w []float64
}

func (r rowSorter) Len() int           { return len(r.c) }
func (r rowSorter) Less(i, j int) bool { return r.c[i] < r.c[j] }
func (r rowSorter) Swap(i, j int) {
	r.c[i], r.c[j] = r.c[j], r.c[i]
	r.w[i], r.w[j] = r.w[j], r.w[i]
}

func sortRow(c []int32, w []float64) {
	if !sort.IsSorted(rowSorter{c, w}) {
		sort.Sort(rowSorter{c, w})
	}
}

// components labels connected components by BFS.
func components(g *Graph) ([]int32, int) {
	n := g.N()
	label := make([]int32, n)
	for i := range label {
		label[i] = -1
	}
	queue := make([]int32, 0, 64)
	count := int32(0)
	for s := 0; s < n; s++ {
		if label[s] >= 0 {
			continue
		}
		label[s] = count
		queue = append(queue[:0], int32(s))
		for len(queue) > 0 {
			u := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, v := range g.col[g.rowPtr[u]:g.rowPtr[u+1]] {
				if label[v] < 0 {
					label[v] = count
					queue = append(queue, v)
				}
			}
		}
		count++
	}
	return label, int(count)
}

// N returns the number of nodes.
func (g *Graph) N() int { return len(g.keys) }

// NumEdges returns the number of undirected edges after merging duplicates.
func (g *Graph) NumEdges() int { return g.edges }

// DuplicatesMerged returns how many repeated edges were merged into others.
func (g *Graph) DuplicatesMerged() int { return g.merged }

// Key returns the key of node i.
func (g *Graph) Key(i int) string { return g.keys[i] }

// Keys returns the node keys in index order. The slice must not be modified.
func (g *Graph) Keys() []string { return g.keys }

// IndexOf returns the index of the node with the given key.
func (g *Graph) IndexOf(key string) (int, bool) {
	i, ok := g.index[key]
	return int(i), ok
}

// Degree returns the weighted degree d_i = Σ_j w_ij.
func (g *Graph) Degree(i int) float64 { return g.degree[i] }

// Degrees returns all weighted degrees. The slice must not be modified.
func (g *Graph) Degrees() []float64 { return g.degree }

// MaxDegree returns max_i d_i.
func (g *Graph) MaxDegree() float64 { return g.maxDeg }

// Unweighted reports whether every edge has weight 1.
func (g *Graph) Unweighted() bool { return g.weight == nil }

// Neighbors returns the neighbour indices of node i and their weights
// (weights is nil for an unweighted graph). The slices must not be modified.
func (g *Graph) Neighbors(i int) (cols []int32, weights []float64) {
	lo, hi := g.rowPtr[i], g.rowPtr[i+1]
	if g.weight == nil {
		return g.col[lo:hi], nil
	}
	return g.col[lo:hi], g.weight[lo:hi]
}

// EdgeWeight returns w_ij, or 0 when i and j are not adjacent.
func (g *Graph) EdgeWeight(i, j int) float64 {
	cols := g.col[g.rowPtr[i]:g.rowPtr[i+1]]
	k := sort.Search(len(cols), func(k int) bool { return cols[k] >= int32(j) })
	if k == len(cols) || cols[k] != int32(j) {
		return 0
	}
	if g.weight == nil {
		return 1
	}
	return g.weight[g.rowPtr[i]+int64(k)]
}

// ForEachEdge calls fn once per undirected edge with i < j.
func (g *Graph) ForEachEdge(fn func(i, j int, w float64)) {
	for i := 0; i < g.N(); i++ {
		for p := g.rowPtr[i]; p < g.rowPtr[i+1]; p++ {
			if j := int(g.col[p]); i < j {
				w := 1.0
				if g.weight != nil {
					w = g.weight[p]
				}
				fn(i, j, w)
			}
		}
	}
}

// Components returns the number of connected components and each node's
// component label in 0..count-1. The slice must not be modified.
func (g *Graph) Components() (count int, label []int32) { return g.compCnt, g.comp }

// Bytes returns the memory held by the graph's arrays, excluding keys.
func (g *Graph) Bytes() int64 {
	return int64(8*len(g.rowPtr) + 4*len(g.col) + 8*len(g.weight) + 8*len(g.degree) + 4*len(g.comp))
}

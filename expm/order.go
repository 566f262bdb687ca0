package expm

import "github.com/graphcloak/graphcloak/laplacian"

// csr is the Laplacian's structure as the block kernels read it: rows of
// neighbour indices and weights (w nil when unweighted), and the weighted
// degrees.
type csr struct {
	rowPtr []int64
	col    []int32
	w      []float64
	deg    []float64
}

func (m *csr) n() int { return len(m.rowPtr) - 1 }

// neighbors returns row i's neighbour indices and weights (nil unweighted).
func (m *csr) neighbors(i int) ([]int32, []float64) {
	lo, hi := m.rowPtr[i], m.rowPtr[i+1]
	if m.w == nil {
		return m.col[lo:hi], nil
	}
	return m.col[lo:hi], m.w[lo:hi]
}

// prefetchCols is how far ahead the 16-column kernel prefetches a
// neighbour's row: csr's col holds as many zeros past its end (in its
// capacity), which that kernel reads unchecked.
const prefetchCols = 16

// paddedCols returns a zeroed copy of size n with prefetchCols more in its
// capacity.
func paddedCols(n int) []int32 { return make([]int32, n, n+prefetchCols) }

// graphCSR is g's own structure, in g's order.
func graphCSR(g *laplacian.Graph) *csr {
	rowPtr, col, w := g.CSR()
	own := paddedCols(len(col))
	copy(own, col)
	return &csr{rowPtr: rowPtr, col: own, w: w, deg: g.Degrees()}
}

// reorderMinNodes (a variable for the tests): smaller graphs are run in their own order (their
// blocks fit in a core's cache whatever the order).
var reorderMinNodes = 4096

// localOrder returns the structure the kernels run on and perm (position
// p holds node perm[p]; nil: g's own order). A graph of at least
// reorderMinNodes nodes is taken in Cuthill–McKee order when that places
// neighbours closer on average than g's order: a row's neighbours then
// sit in a narrow band of the block, which stays in the core's cache
// (LFR 2·10⁴, blocks of 16: 12–13 % less time a step). Each row keeps
// its neighbours in g's sequence (only renamed), so a row's sum runs
// over the same numbers in the same order as in g's order: Apply's
// results are the same bit for bit.
func localOrder(g *laplacian.Graph) (*csr, []int32) {
	own := graphCSR(g)
	if g.N() < reorderMinNodes {
		return own, nil
	}
	perm := g.CuthillMcKee()
	inv := make([]int32, len(perm))
	for p, v := range perm {
		inv[v] = int32(p)
	}
	if spread(own, nil) <= spread(own, inv) {
		return own, nil
	}
	return permuted(own, perm, inv), perm
}

// spread is Σ |pos(i) − pos(j)| over the nonzeros (i, j), pos = inv
// (nil: the identity): the lower, the nearer a row's neighbours.
func spread(m *csr, inv []int32) int64 {
	pos := func(i int32) int64 {
		if inv == nil {
			return int64(i)
		}
		return int64(inv[i])
	}
	var s int64
	for i := range m.n() {
		pi := pos(int32(i))
		for _, j := range m.col[m.rowPtr[i]:m.rowPtr[i+1]] {
			d := pos(j) - pi
			s += max(d, -d)
		}
	}
	return s
}

// permuted returns m with node perm[p] renamed p (inv its inverse), each
// row's neighbours in their original sequence.
func permuted(m *csr, perm, inv []int32) *csr {
	h := &csr{rowPtr: make([]int64, len(m.rowPtr)), col: paddedCols(len(m.col)), deg: make([]float64, len(m.deg))}
	if m.w != nil {
		h.w = make([]float64, len(m.w))
	}
	for p, v := range perm {
		lo, hi := m.rowPtr[v], m.rowPtr[v+1]
		at := h.rowPtr[p]
		h.rowPtr[p+1] = at + hi - lo
		for k, u := range m.col[lo:hi] {
			h.col[at+int64(k)] = inv[u]
		}
		if m.w != nil {
			copy(h.w[at:at+hi-lo], m.w[lo:hi])
		}
		h.deg[p] = m.deg[v]
	}
	return h
}

// gatherRows sets dst's row p to x's row perm[p] (rows of b entries).
func gatherRows(dst, x []float64, perm []int32, b int) {
	for p, v := range perm {
		copy(dst[p*b:(p+1)*b], x[int(v)*b:(int(v)+1)*b])
	}
}

// scatterRows sets dst's row perm[p] to x's row p (rows of b entries).
func scatterRows(dst, x []float64, perm []int32, b int) {
	for p, v := range perm {
		copy(dst[int(v)*b:(int(v)+1)*b], x[p*b:(p+1)*b])
	}
}

package laplacian

import (
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Operator is the sparse Laplacian L = D − W of a Graph.
type Operator struct {
	g       *Graph
	workers int
}

// Laplacian returns the graph's Laplacian as a sparse operator that uses
// up to GOMAXPROCS goroutines, split by rows.
func (g *Graph) Laplacian() *Operator {
	return &Operator{g: g, workers: runtime.GOMAXPROCS(0)}
}

// WithWorkers returns a copy of the operator limited to w goroutines (w ≥ 1).
func (op *Operator) WithWorkers(w int) *Operator {
	if w < 1 {
		w = 1
	}
	return &Operator{g: op.g, workers: w}
}

// Graph returns the operator's graph.
func (op *Operator) Graph() *Graph { return op.g }

// N returns the dimension of L.
func (op *Operator) N() int { return op.g.N() }

// parallelRows runs fn over [0,n) split into contiguous chunks of roughly
// equal nonzero count.
func (op *Operator) parallelRows(minWork int64, fn func(lo, hi int)) {
	splitRows(op.g.rowPtr, op.workers, minWork, fn)
}

// splitRows runs fn over the rows [0,n) of a CSR with row pointers rowPtr
// on up to workers goroutines, split into contiguous chunks of roughly
// equal nonzero count; below minWork (nonzeros plus rows) it runs fn once.
func splitRows(rowPtr []int64, workers int, minWork int64, fn func(lo, hi int)) {
	n := len(rowPtr) - 1
	nnz := rowPtr[n]
	w := workers
	if w <= 1 || nnz+int64(n) < minWork {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	lo := 0
	for k := 1; k <= w; k++ {
		hi := n
		if k < w {
			// First row starting at or after the k-th share of nonzeros.
			target := nnz * int64(k) / int64(w)
			hi = lo + sort.Search(n-lo, func(r int) bool { return rowPtr[lo+r] >= target })
		}
		if hi > lo {
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				fn(lo, hi)
			}(lo, hi)
		}
		lo = hi
	}
	wg.Wait()
}

// MulVec sets dst = L x. It panics if the lengths differ from N or dst aliases x.
func (op *Operator) MulVec(dst, x []float64) {
	n := op.g.N()
	if len(dst) != n || len(x) != n {
		panic("laplacian: MulVec length mismatch")
	}
	if n > 0 && &dst[0] == &x[0] {
		panic("laplacian: MulVec dst aliases x")
	}
	g := op.g
	op.parallelRows(1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := g.degree[i] * x[i]
			p0, p1 := g.rowPtr[i], g.rowPtr[i+1]
			if g.weight == nil {
				for _, j := range g.col[p0:p1] {
					s -= x[j]
				}
			} else {
				w := g.weight[p0:p1]
				for k, j := range g.col[p0:p1] {
					s -= w[k] * x[j]
				}
			}
			dst[i] = s
		}
	})
}

// MulBlock sets dst = L X for a block of b vectors stored row-major:
// X[i*b+c] is entry i of vector c (the layout of mat.Dense's raw data).
// It panics on a length mismatch.
func (op *Operator) MulBlock(dst, x []float64, b int) {
	op.MulBlockAffine(dst, x, b, 1, 0, nil, 0)
}

// MulBlockAffine sets dst = a·(L X) + c·X + e·Z, the fused step of a
// three-term recurrence (Chebyshev). Z may be nil when e == 0, and may
// alias dst. Blocks are row-major n×b. It panics on a length mismatch.
func (op *Operator) MulBlockAffine(dst, x []float64, b int, a, c float64, z []float64, e float64) {
	n := op.g.N()
	if b < 1 || len(dst) != n*b || len(x) != n*b || (z != nil && len(z) != n*b) {
		panic("laplacian: MulBlockAffine length mismatch")
	}
	if n > 0 && &dst[0] == &x[0] {
		panic("laplacian: MulBlockAffine dst aliases x")
	}
	if z == nil {
		e = 0
	}
	op.parallelRows(1<<12, func(lo, hi int) {
		op.blockRows(dst, x, b, a, c, z, e, lo, hi)
	})
}

// blockRows computes rows lo..hi-1 of a·(L X) + c·X + e·Z. Columns are
// processed in strips of four so the four running sums stay in registers;
// each sum is accumulated in CSR order, exactly as MulVec does.
func (op *Operator) blockRows(dst, x []float64, b int, a, c float64, z []float64, e float64, lo, hi int) {
	g := op.g
	for i := lo; i < hi; i++ {
		p0, p1 := g.rowPtr[i], g.rowPtr[i+1]
		cols := g.col[p0:p1]
		var ws []float64
		if g.weight != nil {
			ws = g.weight[p0:p1]
			ws = ws[:len(cols)]
		}
		d := g.degree[i]
		ib := i * b
		c0 := 0
		for ; c0+4 <= b; c0 += 4 {
			xi := x[ib+c0 : ib+c0+4 : ib+c0+4]
			s0, s1, s2, s3 := strip4(x, cols, ws, b, c0, d, xi)
			di := dst[ib+c0 : ib+c0+4 : ib+c0+4]
			if e == 0 {
				di[0] = a*s0 + c*xi[0]
				di[1] = a*s1 + c*xi[1]
				di[2] = a*s2 + c*xi[2]
				di[3] = a*s3 + c*xi[3]
			} else {
				zi := z[ib+c0 : ib+c0+4 : ib+c0+4]
				di[0] = a*s0 + c*xi[0] + e*zi[0]
				di[1] = a*s1 + c*xi[1] + e*zi[1]
				di[2] = a*s2 + c*xi[2] + e*zi[2]
				di[3] = a*s3 + c*xi[3] + e*zi[3]
			}
		}
		for ; c0 < b; c0++ {
			s := column1(x, cols, ws, b, c0, d*x[ib+c0])
			v := a*s + c*x[ib+c0]
			if e != 0 {
				v += e * z[ib+c0]
			}
			dst[ib+c0] = v
		}
	}
}

// strip4 returns (L X)_i for the four columns c0 … c0+3: d·x_i (xi holds
// x_i's four) minus the neighbours' rows, weighted by ws unless nil, in
// CSR order.
func strip4(x []float64, cols []int32, ws []float64, b, c0 int, d float64, xi []float64) (s0, s1, s2, s3 float64) {
	s0, s1, s2, s3 = d*xi[0], d*xi[1], d*xi[2], d*xi[3]
	if ws == nil {
		for _, j := range cols {
			o := int(j)*b + c0
			xj := x[o : o+4 : o+4]
			s0 -= xj[0]
			s1 -= xj[1]
			s2 -= xj[2]
			s3 -= xj[3]
		}
		return s0, s1, s2, s3
	}
	for k, j := range cols {
		w := ws[k]
		o := int(j)*b + c0
		xj := x[o : o+4 : o+4]
		s0 -= w * xj[0]
		s1 -= w * xj[1]
		s2 -= w * xj[2]
		s3 -= w * xj[3]
	}
	return s0, s1, s2, s3
}

// column1 is strip4 for the single column c0, from s = d·x_i.
func column1(x []float64, cols []int32, ws []float64, b, c0 int, s float64) float64 {
	if ws == nil {
		for _, j := range cols {
			s -= x[int(j)*b+c0]
		}
		return s
	}
	for k, j := range cols {
		s -= ws[k] * x[int(j)*b+c0]
	}
	return s
}

// Dense returns L as a dense symmetric matrix. It allocates n² float64s;
// callers guard the size (see expm's dense limit).
func (op *Operator) Dense() *mat.SymDense {
	g := op.g
	n := g.N()
	L := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		L.SetSym(i, i, g.degree[i])
	}
	g.ForEachEdge(func(i, j int, w float64) { L.SetSym(i, j, -w) })
	return L
}

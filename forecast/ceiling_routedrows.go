package forecast

// packedLP is the LP of one routing (routedLP with one routes) with its
// pairs packed once, before the dual steps read them hundreds of times:
// only the pairs in reach, in community order, each as its member (T:
// 2 bytes where n ≤ 2¹⁶) and hop count — 3 bytes a pair where the routes
// take 5 for every pair. Value and gradient are routedLP's to the bit:
// the same products, added in the same order (a row names each member at
// most once, one per community, so its scatter order does not matter).
type packedLP[T uint16 | int32] struct {
	rowPtr []int32
	v      []T
	h      []uint8
	coef   []float64 // by hop count
	b      []float64
	ch     rowChunks
	under  []uint8
}

// newPackedLP packs the routing r (see packedLP) into the given number of
// row chunks.
func newPackedLP(r *routes, epsilon, delta float64, chunks int) dualLP {
	if r.n <= 1<<16 {
		return packRoutes[uint16](r, epsilon, delta, chunks)
	}
	return packRoutes[int32](r, epsilon, delta, chunks)
}

func packRoutes[T uint16 | int32](r *routes, epsilon, delta float64, chunks int) *packedLP[T] {
	n, k := r.n, r.k
	rs := []*routes{r}
	lp := &packedLP[T]{rowPtr: make([]int32, n+1), coef: routedCoefs(1, epsilon), b: routedRHS(rs, epsilon, delta),
		ch: newRowChunks(n, chunks)}
	total := 0
	for _, v := range r.origin {
		if v >= 0 {
			total++
		}
	}
	lp.v, lp.h = make([]T, 0, total), make([]uint8, 0, total)
	for s := range n {
		for i := s * k; i < (s+1)*k; i++ {
			if v := r.origin[i]; v >= 0 {
				lp.v, lp.h = append(lp.v, T(v)), append(lp.h, uint8(r.hops[i]))
			}
		}
		lp.rowPtr[s+1] = int32(len(lp.v))
	}
	return lp
}

// value returns f(y) and fills cov = y + Cᵀy.
func (lp *packedLP[T]) value(y, cov []float64) float64 {
	lp.ch.coverage(y, cov, func(lo, hi int, buf []float64) {
		for s := lo; s < hi; s++ {
			ys := y[s]
			e0, e1 := lp.rowPtr[s], lp.rowPtr[s+1]
			hs := lp.h[e0:e1]
			for e, v := range lp.v[e0:e1] {
				buf[v] += lp.coef[hs[e]] * ys
			}
		}
	})
	return dualValue(lp.b, y, cov)
}

// gradient: ∂f/∂y_s = b_s − Σ_{u uncovered} C_su, row by row.
func (lp *packedLP[T]) gradient(cov, grad []float64) float64 {
	lp.under = uncovered(cov, lp.under)
	under := lp.under
	return lp.ch.sum(func(lo, hi int) float64 {
		norm := 0.0
		for s := lo; s < hi; s++ {
			e0, e1 := lp.rowPtr[s], lp.rowPtr[s+1]
			hs := lp.h[e0:e1]
			g := lp.b[s] - float64(under[s])
			for e, v := range lp.v[e0:e1] {
				g -= lp.coef[hs[e]] * float64(under[v])
			}
			grad[s] = g
			norm += g * g
		}
		return norm
	})
}

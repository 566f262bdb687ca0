package experiment

import (
	"math"
	"runtime"
	"sync"
)

// routedLP is the packing LP of one routing, or of the mean of several
// routings' rows, read straight from their routes (5 bytes a pair) rather
// than from an explicit matrix (8 bytes an entry, four times as many for
// the mean). Its coefficients and right-hand sides are those of the
// explicit matrix, to the bit: e^{−ε·d} rounded down to float32 (times
// 1/m rounded down again for the mean of m routings), and the mean's
// right-hand side rounded up. The rows are cut into chunks, a fixed
// number whatever the cores, each scattering into its own coverage;
// adding those in chunk order makes value and gradient deterministic.
type routedLP struct {
	n, k int
	rs   []*routes
	coef []float64 // by hop count
	b    []float64
	bufs [][]float64 // one coverage per chunk
}

// routedChunks is how many row ranges routedLP cuts the rows into.
const routedChunks = 8

// newRoutedLP returns the LP of rs (the mean of their rows when there are
// several), with its rows in the given number of chunks.
func newRoutedLP(rs []*routes, epsilon, delta float64, chunks int) *routedLP {
	n, k := rs[0].n, rs[0].k
	lp := &routedLP{n: n, k: k, rs: rs, coef: make([]float64, maxFarHops+1), b: make([]float64, n)}
	w := 1 / float32(len(rs))
	gs := make([]float64, maxFarHops+1)
	for d, a := range hopDecay(epsilon) {
		c := math.Nextafter32(float32(a), 0)
		if len(rs) > 1 {
			c = math.Nextafter32(c*w, 0)
		}
		lp.coef[d] = float64(c)
		gs[d] = groupSum(d, epsilon)
	}
	for s := range n {
		for _, r := range rs {
			bs := 1.0
			for _, d := range r.hops[s*k : (s+1)*k] {
				if d >= 0 {
					bs += delta * gs[d]
				}
			}
			lp.b[s] += bs / float64(len(rs))
		}
		if len(rs) > 1 {
			lp.b[s] = math.Nextafter(lp.b[s], math.Inf(1))
		}
	}
	lp.bufs = make([][]float64, max(1, min(chunks, n)))
	for c := range lp.bufs {
		lp.bufs[c] = make([]float64, n)
	}
	return lp
}

// chunk returns the rows of chunk c.
func (lp *routedLP) chunk(c int) (lo, hi int) {
	return c * lp.n / len(lp.bufs), (c + 1) * lp.n / len(lp.bufs)
}

// forChunks runs f on every chunk, on up to GOMAXPROCS goroutines.
func (lp *routedLP) forChunks(f func(c int)) {
	workers := min(runtime.GOMAXPROCS(0), len(lp.bufs))
	if workers <= 1 {
		for c := range lp.bufs {
			f(c)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, len(lp.bufs))
	for c := range lp.bufs {
		next <- c
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for c := range next {
				f(c)
			}
		})
	}
	wg.Wait()
}

// value returns f(y) and fills cov = y + Cᵀy.
func (lp *routedLP) value(y, cov []float64) float64 {
	k := lp.k
	lp.forChunks(func(c int) {
		buf := lp.bufs[c]
		if c == 0 {
			copy(buf, y)
		} else {
			clear(buf)
		}
		lo, hi := lp.chunk(c)
		for s := lo; s < hi; s++ {
			ys := y[s]
			for _, r := range lp.rs {
				hops := r.hops[s*k : (s+1)*k]
				for o, v := range r.origin[s*k : (s+1)*k] {
					if v >= 0 {
						buf[v] += lp.coef[hops[o]] * ys
					}
				}
			}
		}
	})
	copy(cov, lp.bufs[0])
	for _, buf := range lp.bufs[1:] {
		for u, x := range buf {
			cov[u] += x
		}
	}
	f := 0.0
	for s, ys := range y {
		f += lp.b[s] * ys
	}
	for _, x := range cov {
		f += math.Max(0, 1-x)
	}
	return f
}

// gradient: ∂f/∂y_s = b_s − Σ_{u uncovered} C_su, row by row (the norm
// added per chunk, then in chunk order).
func (lp *routedLP) gradient(cov, grad []float64) float64 {
	k := lp.k
	norms := make([]float64, len(lp.bufs))
	lp.forChunks(func(c int) {
		lo, hi := lp.chunk(c)
		for s := lo; s < hi; s++ {
			g := lp.b[s]
			if cov[s] < 1 {
				g--
			}
			for _, r := range lp.rs {
				hops := r.hops[s*k : (s+1)*k]
				for o, v := range r.origin[s*k : (s+1)*k] {
					if v >= 0 && cov[v] < 1 {
						g -= lp.coef[hops[o]]
					}
				}
			}
			grad[s] = g
			norms[c] += g * g
		}
	})
	norm := 0.0
	for _, x := range norms {
		norm += x
	}
	return norm
}

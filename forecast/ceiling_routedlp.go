package forecast

import (
	"math"
	"runtime"
	"slices"
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
	ch   rowChunks
	// under[u] is cov[u] < 1 for the gradient's cov: 1 byte a member,
	// where the gathers over every pair read 8 (cached, not recomputed).
	under []uint8
}

// newRoutedLP returns the LP of rs (the mean of their rows when there are
// several), with its rows in the given number of chunks.
func newRoutedLP(rs []*routes, epsilon, delta float64, chunks int) *routedLP {
	n, k := rs[0].n, rs[0].k
	lp := &routedLP{n: n, k: k, rs: rs, coef: make([]float64, maxFarHops+1), b: make([]float64, n)}
	lp.coef = routedCoefs(len(rs), epsilon)
	lp.b = routedRHS(rs, epsilon, delta)
	lp.ch = newRowChunks(n, chunks)
	return lp
}

// routedCoefs returns, by hop count d, the coefficient of a routed entry
// in the mean of m routings: e^{−ε·d} rounded down to float32, then (when
// m > 1) times 1/m rounded down again — smaller coefficients only weaken
// the rows.
func routedCoefs(m int, epsilon float64) []float64 {
	coef := make([]float64, maxFarHops+1)
	w := 1 / float32(m)
	for d, a := range hopDecay(epsilon) {
		c := math.Nextafter32(float32(a), 0)
		if m > 1 {
			c = math.Nextafter32(c*w, 0)
		}
		coef[d] = float64(c)
	}
	return coef
}

// routedRHS returns the right-hand sides of the mean of rs's rows: 1 plus
// δ·S_d for every routed entry, averaged and (when there are several)
// rounded up.
func routedRHS(rs []*routes, epsilon, delta float64) []float64 {
	n, k := rs[0].n, rs[0].k
	gs := make([]float64, maxFarHops+1)
	for d := range gs {
		gs[d] = groupSum(d, epsilon)
	}
	b := make([]float64, n)
	for s := range n {
		for _, r := range rs {
			bs := 1.0
			for _, d := range r.hops[s*k : (s+1)*k] {
				if d >= 0 {
					bs += delta * gs[d]
				}
			}
			b[s] += bs / float64(len(rs))
		}
		if len(rs) > 1 {
			b[s] = math.Nextafter(b[s], math.Inf(1))
		}
	}
	return b
}

// rowChunks cuts the rows of an LP into a fixed number of ranges
// (routedChunks, whatever the cores), each scattering into its own
// coverage; adding those in chunk order makes value and gradient
// deterministic. The first chunk's coverage starts at y, so in one chunk
// the sums are the serial ones to the bit.
type rowChunks struct {
	n    int
	bufs [][]float64 // one coverage per chunk
}

// routedChunks is how many row ranges the routed LPs are cut into.
const routedChunks = 8

func newRowChunks(n, chunks int) rowChunks {
	ch := rowChunks{n: n, bufs: make([][]float64, max(1, min(chunks, n)))}
	for c := range ch.bufs {
		ch.bufs[c] = make([]float64, n)
	}
	return ch
}

// rows returns the rows of chunk c.
func (ch rowChunks) rows(c int) (lo, hi int) {
	return c * ch.n / len(ch.bufs), (c + 1) * ch.n / len(ch.bufs)
}

// coverage runs scatter on every chunk's rows with its coverage buffer
// (the first starting at y, the others at 0), on up to GOMAXPROCS
// goroutines, and adds the buffers into cov in chunk order.
func (ch rowChunks) coverage(y, cov []float64, scatter func(lo, hi int, buf []float64)) {
	ch.each(func(c int) {
		buf := ch.bufs[c]
		if c == 0 {
			copy(buf, y)
		} else {
			clear(buf)
		}
		lo, hi := ch.rows(c)
		scatter(lo, hi, buf)
	})
	copy(cov, ch.bufs[0])
	for _, buf := range ch.bufs[1:] {
		for u, x := range buf {
			cov[u] += x
		}
	}
}

// sum runs part on every chunk's rows and adds the results in chunk order.
func (ch rowChunks) sum(part func(lo, hi int) float64) float64 {
	parts := make([]float64, len(ch.bufs))
	ch.each(func(c int) { parts[c] = part(ch.rows(c)) })
	total := 0.0
	for _, x := range parts {
		total += x
	}
	return total
}

// each runs f on every chunk, on up to GOMAXPROCS goroutines.
func (ch rowChunks) each(f func(c int)) {
	workers := min(runtime.GOMAXPROCS(0), len(ch.bufs))
	if workers <= 1 {
		for c := range ch.bufs {
			f(c)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, len(ch.bufs))
	for c := range ch.bufs {
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

// dualValue is f = Σ b_s y_s + Σ_u max(0, 1 − cov_u).
func dualValue(b, y, cov []float64) float64 {
	f := 0.0
	for s, ys := range y {
		f += b[s] * ys
	}
	for _, x := range cov {
		f += math.Max(0, 1-x)
	}
	return f
}

// value returns f(y) and fills cov = y + Cᵀy.
func (lp *routedLP) value(y, cov []float64) float64 {
	k := lp.k
	lp.ch.coverage(y, cov, func(lo, hi int, buf []float64) {
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
	return dualValue(lp.b, y, cov)
}

// gradient: ∂f/∂y_s = b_s − Σ_{u uncovered} C_su, row by row.
func (lp *routedLP) gradient(cov, grad []float64) float64 {
	k := lp.k
	lp.under = uncovered(cov, lp.under)
	under := lp.under
	return lp.ch.sum(func(lo, hi int) float64 {
		norm := 0.0
		for s := lo; s < hi; s++ {
			g := lp.b[s] - float64(under[s])
			for _, r := range lp.rs {
				hops := r.hops[s*k : (s+1)*k]
				for o, v := range r.origin[s*k : (s+1)*k] {
					if v >= 0 {
						g -= lp.coef[hops[o]] * float64(under[v])
					}
				}
			}
			grad[s] = g
			norm += g * g
		}
		return norm
	})
}

// mergedMean returns the LP of the mean of rs's rows (several routings)
// as an explicit matrix whose entries for one pair (s, community) that
// name the same member are merged: their coefficients added, rounded
// down to float32. The late routings mostly agree, so it holds 1.1–1.4
// entries a pair (8 bytes each) where reading the routings costs 5 bytes
// a pair for each of them.
func mergedMean(rs []*routes, epsilon, delta float64) *starMatrix {
	n, k := rs[0].n, rs[0].k
	coef := routedCoefs(len(rs), epsilon)
	m := &starMatrix{b: routedRHS(rs, epsilon, delta), rowPtr: make([]int, n+1), ch: newRowChunks(n, routedChunks)}
	total := 0
	var vs []int32
	for i := range n * k {
		vs = pairMembers(rs, i, vs[:0])
		total += len(vs)
	}
	m.u, m.a = make([]int32, 0, total), make([]float32, 0, total)
	var sums []float64
	for s := range n {
		for i := s * k; i < (s+1)*k; i++ {
			vs = pairMembers(rs, i, vs[:0])
			sums = sums[:0]
			for range vs {
				sums = append(sums, 0)
			}
			for _, r := range rs {
				if v := r.origin[i]; v >= 0 {
					sums[slices.Index(vs, v)] += coef[r.hops[i]]
				}
			}
			for j, v := range vs {
				a := float32(sums[j])
				if float64(a) > sums[j] {
					a = math.Nextafter32(a, 0) // rounded down: only weakens the row
				}
				m.u, m.a = append(m.u, v), append(m.a, a)
			}
		}
		m.rowPtr[s+1] = len(m.u)
	}
	return m
}

// pairMembers appends to vs the distinct members the routings rs credit
// for pair i, in order of first appearance.
func pairMembers(rs []*routes, i int, vs []int32) []int32 {
	for _, r := range rs {
		if v := r.origin[i]; v >= 0 && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs
}

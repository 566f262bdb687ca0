package sensitivity

import (
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/laplacian"
)

// blockKernel applies the fused Chebyshev step dst = a·L·x + c·x + e·z to a
// row-major n×16 block (X[v*16+col]), split over goroutines by rows of
// roughly equal nonzero count. z may alias dst (each row reads z before
// writing dst). It is a specialisation of laplacian.Operator.MulBlockAffine
// for the column scheme's fixed block width.
type blockKernel struct {
	g      *laplacian.Graph
	deg    []float64
	splits []int
}

func newBlockKernel(g *laplacian.Graph) *blockKernel {
	n := g.N()
	w := runtime.GOMAXPROCS(0)
	total := 0
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		total += len(c) + 1
	}
	splits := []int{0}
	if w > 1 && total > 1<<12 {
		acc, next := 0, 1
		for i := 0; i < n && next < w; i++ {
			c, _ := g.Neighbors(i)
			acc += len(c) + 1
			if acc >= total*next/w {
				splits = append(splits, i+1)
				next++
			}
		}
	}
	if splits[len(splits)-1] != n {
		splits = append(splits, n)
	}
	return &blockKernel{g: g, deg: g.Degrees(), splits: splits}
}

func (k *blockKernel) step(dst, x, z []float64, a, c, e float64) {
	if len(k.splits) == 2 {
		k.rows(k.splits[0], k.splits[1], dst, x, z, a, c, e)
		return
	}
	var wg sync.WaitGroup
	for w := 1; w+1 < len(k.splits); w++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			k.rows(lo, hi, dst, x, z, a, c, e)
		}(k.splits[w], k.splits[w+1])
	}
	k.rows(k.splits[0], k.splits[1], dst, x, z, a, c, e)
	wg.Wait()
}

// stepOn is step restricted to the rows in ball: the caller guarantees
// that x and z vanish outside the rows whose neighbours are all in ball
// (and that dst already vanishes outside ball), so the rows skipped would
// have been computed as exact zeros.
func (k *blockKernel) stepOn(ball []int32, dst, x, z []float64, a, c, e float64) {
	const perWorker = 2048 // rows below which a second goroutine does not pay
	w := min(len(k.splits)-1, len(ball)/perWorker)
	if w <= 1 {
		k.rowsOf(ball, 0, len(ball), dst, x, z, a, c, e)
		return
	}
	var wg sync.WaitGroup
	for t := 1; t < w; t++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			k.rowsOf(ball, lo, hi, dst, x, z, a, c, e)
		}(len(ball)*t/w, len(ball)*(t+1)/w)
	}
	k.rowsOf(ball, 0, len(ball)/w, dst, x, z, a, c, e)
	wg.Wait()
}

func (k *blockKernel) rows(lo, hi int, dst, x, z []float64, a, c, e float64) {
	k.rowsOf(nil, lo, hi, dst, x, z, a, c, e)
}

// rowsOf computes rows idx[lo:hi] of the step, or rows lo..hi−1 when idx
// is nil.
func (k *blockKernel) rowsOf(idx []int32, lo, hi int, dst, x, z []float64, a, c, e float64) {
	rowPtr, col, w := k.g.CSR()
	kernelRows(dst, x, z, idx, rowPtr, col, w, k.deg, lo, hi, a, c, e)
}

// rowsGo computes, for t in [lo, hi) and i = idx[t] (t when idx is nil),
// row i of dst = a·(D − W)x + c·x (+ e·z when z is not nil) on the graph
// given by its CSR arrays and degrees deg: per column, acc = deg_i·x_i,
// minus w_p·x_{col[p]} in neighbour order (no product when w is nil), then
// a·acc + c·x_i (+ e·z_i). Every product is rounded on its own (no fused
// multiply–add), as rowsAVX2 does.
func rowsGo(dst, x, z []float64, idx []int32, rowPtr []int64, col []int32, w, deg []float64, lo, hi int, a, c, e float64) {
	const b = columnBlock
	for t := lo; t < hi; t++ {
		i := t
		if idx != nil {
			i = int(idx[t])
		}
		cols := col[rowPtr[i]:rowPtr[i+1]]
		var ws []float64
		if w != nil {
			ws = w[rowPtr[i]:rowPtr[i+1]]
		}
		var zi *[b]float64
		if z != nil {
			zi = (*[b]float64)(z[i*b : i*b+b])
		}
		rowGo((*[b]float64)(dst[i*b:i*b+b]), (*[b]float64)(x[i*b:i*b+b]), zi, x, cols, ws, deg[i], a, c, e)
	}
}

// rowGo is one row of rowsGo.
func rowGo(dst, xi, zi *[columnBlock]float64, x []float64, cols []int32, ws []float64, d, a, c, e float64) {
	const b = columnBlock
	var acc [b]float64
	for t := range acc {
		acc[t] = d * xi[t]
	}
	// In strips of four columns, so that the sums, the weight and a
	// load stay in registers; per column the operations are those of
	// acc[t] −= w·x_jt in neighbour order (w = 1 read as no product).
	if ws == nil {
		for h := 0; h < b; h += 4 {
			a0, a1, a2, a3 := acc[h], acc[h+1], acc[h+2], acc[h+3]
			for _, j := range cols {
				xj := (*[4]float64)(x[int(j)*b+h : int(j)*b+h+4])
				a0 -= xj[0]
				a1 -= xj[1]
				a2 -= xj[2]
				a3 -= xj[3]
			}
			acc[h], acc[h+1], acc[h+2], acc[h+3] = a0, a1, a2, a3
		}
	} else {
		ws = ws[:len(cols)]
		for h := 0; h < b; h += 4 {
			a0, a1, a2, a3 := acc[h], acc[h+1], acc[h+2], acc[h+3]
			for p, j := range cols {
				w := ws[p]
				xj := (*[4]float64)(x[int(j)*b+h : int(j)*b+h+4])
				a0 -= float64(w * xj[0])
				a1 -= float64(w * xj[1])
				a2 -= float64(w * xj[2])
				a3 -= float64(w * xj[3])
			}
			acc[h], acc[h+1], acc[h+2], acc[h+3] = a0, a1, a2, a3
		}
	}
	if zi == nil {
		for t := range acc {
			dst[t] = float64(a*acc[t]) + float64(c*xi[t])
		}
		return
	}
	for t := range acc {
		dst[t] = float64(float64(a*acc[t])+float64(c*xi[t])) + float64(e*zi[t])
	}
}

// The vector passes of a Lanczos block step (lanczosBlock.step) over
// row-major n×16 blocks, per column in row order; every product is rounded
// on its own, as their AVX2 versions do.

// dotsGo adds, for each row r < len(om) of w and x and each column t,
// x·w to a[t], w·w to wn[t] and (om[r]·x)·x to es[t].
func dotsGo(w, x, om []float64, a, wn, es *[columnBlock]float64) {
	const b = columnBlock
	for r, o := range om {
		wr := (*[b]float64)(w[r*b : r*b+b])
		xr := (*[b]float64)(x[r*b : r*b+b])
		for t := range b {
			wt, xt := wr[t], xr[t]
			a[t] += float64(xt * wt)
			wn[t] += float64(wt * wt)
			es[t] += float64(float64(o*xt) * xt)
		}
	}
}

// axpy2Go sets w = (w − a[t]·x) − bp[t]·p in each row and column t and
// adds the new w² to bb[t].
func axpy2Go(w, x, p []float64, a, bp, bb *[columnBlock]float64) {
	const b = columnBlock
	for r := 0; r+b <= len(w); r += b {
		wr := (*[b]float64)(w[r : r+b])
		xr := (*[b]float64)(x[r : r+b])
		pr := (*[b]float64)(p[r : r+b])
		for t := range b {
			y := wr[t] - float64(a[t]*xr[t])
			y -= float64(bp[t] * pr[t])
			wr[t] = y
			bb[t] += float64(y * y)
		}
	}
}

// scaleShiftGo sets, in each row and column t, y = w·inv[t], p = x and
// x = y, and adds y² to vn[t].
func scaleShiftGo(w, x, p []float64, inv, vn *[columnBlock]float64) {
	const b = columnBlock
	for r := 0; r+b <= len(w); r += b {
		wr := (*[b]float64)(w[r : r+b])
		xr := (*[b]float64)(x[r : r+b])
		pr := (*[b]float64)(p[r : r+b])
		for t := range b {
			y := wr[t] * inv[t]
			pr[t], xr[t] = xr[t], y
			vn[t] += float64(y * y)
		}
	}
}

// colSumsGo adds, per row of the row-major n×16 block t in order and per
// column k, t's entry to s[k]: the panels' component sums when the graph
// is connected.
func colSumsGo(t []float64, s *[columnBlock]float64) {
	const b = columnBlock
	for r := 0; r+b <= len(t); r += b {
		row := (*[b]float64)(t[r : r+b])
		for k := range b {
			s[k] += row[k]
		}
	}
}

// centerAccGo sets, per row of t and column k, v = t − s[k], t = v and
// acc += ck·v: the panels' projection off the null space (s the column
// means) fused with their accumulation.
func centerAccGo(t, acc []float64, s *[columnBlock]float64, ck float64) {
	const b = columnBlock
	for r := 0; r+b <= len(t); r += b {
		row := (*[b]float64)(t[r : r+b])
		ai := (*[b]float64)(acc[r : r+b])
		for k := range b {
			v := row[k] - s[k]
			row[k] = v
			ai[k] += float64(ck * v)
		}
	}
}

//go:build !purego

package expm

import "golang.org/x/sys/cpu"

//go:noescape
func rows32lnAVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)

//go:noescape
func rows16lnAVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)

//go:noescape
func rows8AVX2(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, chunkBytes int, alpha, beta, gam, ck, c0 float64, first int)

// useAVX2: rowsB's full eight-column chunks run in AVX2, which performs
// the Go path's operations per column in the same order and so gives the
// same results bit for bit (TestRows8MatchesGo).
var useAVX2 = cpu.X86.HasAVX2

// rows8 runs the Chebyshev step on rows [lo, hi) and the first chunks·8 of
// the block's b columns in AVX2, and reports whether it did (false
// without AVX2: rowsB then runs every column in Go). The assembly checks
// no index, so every length it relies on is checked here; the graph's own
// invariants (rowPtr increasing, col in [0, n), weights as long as col)
// hold by construction.
func rows8(m *csr, lo, hi int, out, x, z, acc []float64, b, chunks int, alpha, beta, gam, ck, c0 float64) bool {
	if !useAVX2 || chunks == 0 {
		return false
	}
	rowPtr, col, w, deg := m.rowPtr, m.col, m.w, m.deg
	n := len(rowPtr) - 1
	if lo < 0 || hi > n || len(deg) < n || chunks*8 > b || len(x) < n*b || len(out) < n*b || len(acc) < n*b ||
		(z != nil && len(z) < n*b) || (w != nil && len(w) != len(col)) ||
		int64(len(col)) != rowPtr[n] || cap(col)-len(col) < prefetchCols {
		panic("expm: kernel block of the wrong size")
	}
	if lo >= hi {
		return true
	}
	first := 0
	if c0 != 0 {
		first = 1
	}
	// The widest kernels first (one pass over the row's neighbours per 32
	// or 16 columns), then the chunks left over.
	o := 0
	for _, k := range kernels {
		groups := (chunks - o/8) / k.chunks
		if groups == 0 {
			continue
		}
		var zo []float64
		if z != nil {
			zo = z[o:]
		}
		k.run(out[o:], x[o:], zo, acc[o:], rowPtr, col[:len(col)+prefetchCols], w, deg, lo, hi, 8*b, 64*k.chunks*groups, alpha, beta, gam, ck, c0, first)
		o += 8 * k.chunks * groups
	}
	return true
}

// kernels are the AVX2 row kernels, widest first: run handles groups of
// chunks eight-column chunks.
var kernels = []struct {
	run    func(out, x, z, acc []float64, rowPtr []int64, col []int32, w, deg []float64, lo, hi, stride, groupBytes int, alpha, beta, gam, ck, c0 float64, first int)
	chunks int
}{{rows32lnAVX2, 4}, {rows16lnAVX2, 2}, {rows8AVX2, 1}}

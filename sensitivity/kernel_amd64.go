//go:build !purego

package sensitivity

import "golang.org/x/sys/cpu"

//go:noescape
func rowsAVX2(dst, x, z []float64, idx []int32, rowPtr []int64, col []int32, w, deg []float64, lo, hi int, a, c, e float64)

// useAVX2: the kernels run their AVX2 versions, which perform the Go
// versions' operations per column in the same order, and so give the same
// results bit for bit (TestKernelsMatchGo).
var useAVX2 = cpu.X86.HasAVX2

// kernelRows is rowsGo, in AVX2 where the processor has it. rowsAVX2
// checks no index, so the lengths and the rows asked for are checked here;
// the graph's own invariants (rowPtr increasing, col in [0, n), w as long
// as col) hold by construction.
func kernelRows(dst, x, z []float64, idx []int32, rowPtr []int64, col []int32, w, deg []float64, lo, hi int, a, c, e float64) {
	if !useAVX2 {
		rowsGo(dst, x, z, idx, rowPtr, col, w, deg, lo, hi, a, c, e)
		return
	}
	n := len(rowPtr) - 1
	rows := n
	if idx != nil {
		rows = len(idx)
		for _, i := range idx[lo:hi] {
			if i < 0 || int(i) >= n {
				panic("sensitivity: kernel row out of range")
			}
		}
	}
	if lo < 0 || hi > rows || len(deg) < n || len(x) < n*columnBlock || len(dst) < n*columnBlock ||
		(z != nil && len(z) < n*columnBlock) || (w != nil && len(w) != len(col)) {
		panic("sensitivity: kernel block of the wrong size")
	}
	if lo >= hi {
		return
	}
	rowsAVX2(dst, x, z, idx, rowPtr, col, w, deg, lo, hi, a, c, e)
}

//go:noescape
func dotsAVX2(w, x, om []float64, a, wn, es *[columnBlock]float64)

//go:noescape
func axpy2AVX2(w, x, p []float64, a, bp, bb *[columnBlock]float64)

//go:noescape
func scaleShiftAVX2(w, x, p []float64, inv, vn *[columnBlock]float64)

// dots, axpy2 and scaleShift are dotsGo, axpy2Go and scaleShiftGo, in
// AVX2 where the processor has it; the reslicing checks every length the
// assembly relies on.
func dots(w, x, om []float64, a, wn, es *[columnBlock]float64) {
	if useAVX2 {
		w, x = w[:len(om)*columnBlock], x[:len(om)*columnBlock]
		dotsAVX2(w, x, om, a, wn, es)
		return
	}
	dotsGo(w, x, om, a, wn, es)
}

func axpy2(w, x, p []float64, a, bp, bb *[columnBlock]float64) {
	if useAVX2 {
		w = w[:len(w)/columnBlock*columnBlock]
		x, p = x[:len(w)], p[:len(w)]
		axpy2AVX2(w, x, p, a, bp, bb)
		return
	}
	axpy2Go(w, x, p, a, bp, bb)
}

func scaleShift(w, x, p []float64, inv, vn *[columnBlock]float64) {
	if useAVX2 {
		w = w[:len(w)/columnBlock*columnBlock]
		x, p = x[:len(w)], p[:len(w)]
		scaleShiftAVX2(w, x, p, inv, vn)
		return
	}
	scaleShiftGo(w, x, p, inv, vn)
}

//go:noescape
func colSumsAVX2(t []float64, s *[columnBlock]float64)

//go:noescape
func centerAccAVX2(t, acc []float64, s *[columnBlock]float64, ck float64)

// colSums and centerAcc are colSumsGo and centerAccGo, in AVX2 where the
// processor has it.
func colSums(t []float64, s *[columnBlock]float64) {
	if useAVX2 {
		colSumsAVX2(t[:len(t)/columnBlock*columnBlock], s)
		return
	}
	colSumsGo(t, s)
}

func centerAcc(t, acc []float64, s *[columnBlock]float64, ck float64) {
	if useAVX2 {
		t = t[:len(t)/columnBlock*columnBlock]
		centerAccAVX2(t, acc[:len(t)], s, ck)
		return
	}
	centerAccGo(t, acc, s, ck)
}

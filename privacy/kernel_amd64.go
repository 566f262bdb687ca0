//go:build !purego

package privacy

import "golang.org/x/sys/cpu"

//go:noescape
func rowAVX2(dst, xi, zi *[columnBlock]float64, x []float64, cols []int32, ws []float64, d, a, c, e float64)

// useAVX2: the kernels run their AVX2 versions, which perform the Go
// versions' operations per column in the same order, and so give the same
// results bit for bit (TestKernelsMatchGo).
var useAVX2 = cpu.X86.HasAVX2

func row(dst, xi, zi *[columnBlock]float64, x []float64, cols []int32, ws []float64, d, a, c, e float64) {
	if useAVX2 {
		rowAVX2(dst, xi, zi, x, cols, ws, d, a, c, e)
		return
	}
	rowGo(dst, xi, zi, x, cols, ws, d, a, c, e)
}

//go:noescape
func dotsAVX2(w, x, om []float64, a, wn, es *[columnBlock]float64)

//go:noescape
func axpy2AVX2(w, x, p []float64, a, bp, bb *[columnBlock]float64)

//go:noescape
func scaleShiftAVX2(w, x, p []float64, inv, vn *[columnBlock]float64)

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

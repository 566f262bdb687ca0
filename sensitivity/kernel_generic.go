//go:build !amd64 || purego

package sensitivity

const useAVX2 = false

func kernelRows(dst, x, z []float64, idx []int32, rowPtr []int64, col []int32, w, deg []float64, lo, hi int, a, c, e float64) {
	rowsGo(dst, x, z, idx, rowPtr, col, w, deg, lo, hi, a, c, e)
}

func dots(w, x, om []float64, a, wn, es *[columnBlock]float64) { dotsGo(w, x, om, a, wn, es) }

func axpy2(w, x, p []float64, a, bp, bb *[columnBlock]float64) { axpy2Go(w, x, p, a, bp, bb) }

func scaleShift(w, x, p []float64, inv, vn *[columnBlock]float64) { scaleShiftGo(w, x, p, inv, vn) }

func colSums(t []float64, s *[columnBlock]float64) { colSumsGo(t, s) }

func centerAcc(t, acc []float64, s *[columnBlock]float64, ck float64) { centerAccGo(t, acc, s, ck) }

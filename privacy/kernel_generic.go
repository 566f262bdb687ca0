//go:build !amd64 || purego

package privacy

const useAVX2 = false

func row(dst, xi, zi *[columnBlock]float64, x []float64, cols []int32, ws []float64, d, a, c, e float64) {
	rowGo(dst, xi, zi, x, cols, ws, d, a, c, e)
}

func dots(w, x, om []float64, a, wn, es *[columnBlock]float64) { dotsGo(w, x, om, a, wn, es) }

func axpy2(w, x, p []float64, a, bp, bb *[columnBlock]float64) { axpy2Go(w, x, p, a, bp, bb) }

func scaleShift(w, x, p []float64, inv, vn *[columnBlock]float64) { scaleShiftGo(w, x, p, inv, vn) }

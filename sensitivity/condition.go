package sensitivity

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// kappa2 returns the 2-norm condition number σ_max/σ_min of the m×n matrix
// with entries at(i, j), σ_min the min(m, n)-th singular value, by gonum's
// SVD. It is informational, not a privacy number: it returns +Inf when
// σ_min ≤ max(m, n)·u·σ_max (numerically singular: the computed σ_min is
// rounding noise), and NaN when the SVD fails.
func kappa2(at func(i, j int) float64, m, n int) float64 {
	A := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, at(i, j))
		}
	}
	return kappa2Dense(A)
}

func kappa2Dense(A mat.Matrix) float64 {
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDNone) {
		return math.NaN()
	}
	v := svd.Values(nil)
	m, n := A.Dims()
	hi, lo := v[0], v[len(v)-1]
	if hi == 0 {
		return math.Inf(1)
	}
	if lo <= float64(max(m, n))*roundoffU*hi {
		return math.Inf(1)
	}
	return hi / lo
}

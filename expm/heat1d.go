package expm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// HeatKernel1D returns the m×n heat kernel on the unit interval
// (DESIGN.md §1):
//
//	A_ij = g(s_i − x_j),  g(x) = exp(−x²/4T)/√(4πT),
//	s_i = i/m (i = 1..m, sensors),  x_j = j/n (j = 1..n, source grid),
//
// stored with row index i−1 and column index j−1. It returns a *ParamError
// for m < 1, n < 1, or T not positive and finite.
func HeatKernel1D(m, n int, T float64) (*mat.Dense, error) {
	if m < 1 {
		return nil, &ParamError{Name: "m", Value: float64(m), Want: "at least 1"}
	}
	if n < 1 {
		return nil, &ParamError{Name: "n", Value: float64(n), Want: "at least 1"}
	}
	if !(T > 0) || math.IsInf(T, 1) {
		return nil, &ParamError{Name: "T", Value: T, Want: "positive and finite"}
	}
	if int64(m)*int64(n) > 1<<31 {
		return nil, &ParamError{Name: "m·n", Value: float64(m) * float64(n), Want: "at most 2^31 entries"}
	}
	a := mat.NewDense(m, n, nil)
	norm := 1 / math.Sqrt(4*math.Pi*T)
	// s_i − x_j = (i·n − j·m)/(m·n): the integer numerator is exact, so the
	// difference is correctly rounded and A is exactly shift invariant.
	mn := float64(int64(m) * int64(n))
	for i := 1; i <= m; i++ {
		row := a.RawRowView(i - 1)
		for j := 1; j <= n; j++ {
			d := float64(int64(i)*int64(n)-int64(j)*int64(m)) / mn
			row[j-1] = norm * math.Exp(-d*d/(4*T))
		}
	}
	return a, nil
}

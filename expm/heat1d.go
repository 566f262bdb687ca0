package expm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// HeatLine is the heat kernel on the unit interval (DESIGN.md §1):
//
//	A_ij = g(s_i − x_j),  g(x) = exp(−x²/4T)/√(4πT),
//	s_i = i/m (i = 1..m, sensors),  x_j = j/n (j = 1..n, source grid).
//
// It is the one definition of the kernel: HeatKernel1D, the line
// sensitivity (package privacy) and the line recovery model (package
// recovery) all evaluate it through At, so they agree to the last bit.
type HeatLine struct {
	M, N int
	T    float64
	norm float64 // 1/√(4πT)
	mn   float64 // m·n
}

// NewHeatLine validates m ≥ 1, n ≥ 1 and T positive and finite, returning
// a *ParamError otherwise.
func NewHeatLine(m, n int, T float64) (HeatLine, error) {
	if m < 1 {
		return HeatLine{}, &ParamError{Name: "m", Value: float64(m), Want: "at least 1"}
	}
	if n < 1 {
		return HeatLine{}, &ParamError{Name: "n", Value: float64(n), Want: "at least 1"}
	}
	if !(T > 0) || math.IsInf(T, 1) {
		return HeatLine{}, &ParamError{Name: "T", Value: T, Want: "positive and finite"}
	}
	return HeatLine{M: m, N: n, T: T, norm: 1 / math.Sqrt(4*math.Pi*T), mn: float64(int64(m) * int64(n))}, nil
}

// Exponent returns z = (s_i − x_j)²/4T for 1-based i, j. The difference
// s_i − x_j = (i·n − j·m)/(m·n) has an exact integer numerator, so it is
// correctly rounded and the kernel is exactly shift invariant; z then
// carries relative error ≤ 4u.
func (h HeatLine) Exponent(i, j int) float64 {
	d := float64(int64(i)*int64(h.N)-int64(j)*int64(h.M)) / h.mn
	return d * d / (4 * h.T)
}

// Norm returns the normalisation 1/√(4πT) (relative error ≤ 3u).
func (h HeatLine) Norm() float64 { return h.norm }

// At returns A_ij for 1-based i, j.
func (h HeatLine) At(i, j int) float64 { return math.Exp(-h.Exponent(i, j)) * h.norm }

// HeatKernel1D returns the m×n heat kernel of HeatLine, stored with row
// index i−1 and column index j−1. It returns a *ParamError for m < 1,
// n < 1, T not positive and finite, or more than 2^31 entries.
func HeatKernel1D(m, n int, T float64) (*mat.Dense, error) {
	h, err := NewHeatLine(m, n, T)
	if err != nil {
		return nil, err
	}
	if int64(m)*int64(n) > 1<<31 {
		return nil, &ParamError{Name: "m·n", Value: float64(m) * float64(n), Want: "at most 2^31 entries"}
	}
	a := mat.NewDense(m, n, nil)
	for i := 1; i <= m; i++ {
		row := a.RawRowView(i - 1)
		for j := 1; j <= n; j++ {
			row[j-1] = h.At(i, j)
		}
	}
	return a, nil
}

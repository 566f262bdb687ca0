package sensitivity

import (
	"math"

	"github.com/graphcloak/graphcloak/expm"
)

// Line returns Δ2 of the 1-D heat kernel on the unit interval,
//
//	A_ij = g(s_i − x_j),  g(x) = exp(−x²/4T)/√(4πT),  s_i = i/m (i = 1..m),  x_j = j/n (j = 1..n),
//
// whose source grid has spacing 1/n, so (DESIGN §1)
//
//	Δ2 = α · n · max_{1≤j<n} ‖A_j − A_{j+1}‖₂.
//
// The columns are closed-form Gaussians, so the value is computed directly
// in O(mn) time and O(m) memory (docs/derivations.md §3), with a bound on the
// floating-point error of every entry (exp of an argument z with relative
// error ≤ 4u has relative error ≤ (4|z| + 1)u) added before rounding up.
// n = 1 has no adjacent pair and Δ2 = 0. Kappa2 is κ2(A) by SVD when
// m·n·min(m, n) ≤ 2.5e8, else NaN.
func Line(n, m int, T, alpha float64) (Result, error) {
	if n < 1 {
		return Result{}, &ParamError{"n", float64(n), "must be ≥ 1"}
	}
	if m < 1 {
		return Result{}, &ParamError{"m", float64(m), "must be ≥ 1"}
	}
	if err := checkPositive("T", T); err != nil {
		return Result{}, err
	}
	if err := checkPositive("alpha", alpha); err != nil {
		return Result{}, err
	}
	s := Result{
		Certified:  true,
		Exact:      true,
		Method:     "heat-kernel-1d",
		Alpha:      alpha,
		Edge:       [2]int{-1, -1},
		Nodes:      n,
		Edges:      n - 1,
		Components: 1,
		Kappa2:     math.NaN(),
	}
	u := roundoffU
	h, err := expm.NewHeatLine(m, n, T)
	if err != nil {
		return Result{}, err
	}
	// z = d²/(4T) carries relative error ≤ 4u (expm.HeatLine.Exponent),
	// exp(−z) relative error ≤ (4z + 1)u, the product with the
	// normalisation (itself within 3u) a few more.
	col := func(j int, dst, err []float64) float64 {
		e2 := 0.0
		for i := range dst {
			z := h.Exponent(i+1, j)
			v := math.Exp(-z) * h.Norm()
			dst[i] = v
			err[i] = (4*z + 8) * u * v
			e2 += err[i] * err[i]
		}
		return math.Sqrt(e2)
	}
	prev, prevErr := make([]float64, m), make([]float64, m)
	cur, curErr := make([]float64, m), make([]float64, m)
	pe := col(1, prev, prevErr)
	bestUp, bestLo := 0.0, 0.0
	for j := 1; j < n; j++ {
		ce := col(j+1, cur, curErr)
		s2 := 0.0
		for i := range cur {
			d := prev[i] - cur[i]
			s2 += d * d
		}
		r := math.Sqrt(s2)
		fl := (pe+ce)*(1+highamGamma(m+2)) + highamGamma(m+3)*r
		if up := r + fl; up > bestUp || s.Edge[0] < 0 {
			bestUp = up
			s.Edge = [2]int{j - 1, j} // 0-based location indices
		}
		bestLo = math.Max(bestLo, r-fl)
		prev, cur = cur, prev
		prevErr, curErr = curErr, prevErr
		pe = ce
	}
	nf := float64(n)
	s.Delta2 = roundUpDelta(alpha * nf * bestUp)
	s.Slack = math.Max(0, s.Delta2-roundDownDelta(alpha*nf*bestLo))
	if float64(m)*float64(n)*float64(min(m, n)) <= 2.5e8 {
		s.Kappa2 = kappa2(func(i, j int) float64 { return h.At(i+1, j+1) }, m, n)
	}
	return s, nil
}

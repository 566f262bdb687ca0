package expm

import "math"

// ChebyshevTailBound returns a rigorous upper bound on the truncation error
//
//	E_K(a) = 2·Σ_{k>K} e^{−a}·I_k(a)
//
// of the degree-K Chebyshev expansion of e^{−a(1+y)} on [−1, 1], which
// bounds ‖exp(−τL) − p_K(L)‖₂ in exact arithmetic when a = τB/2 and
// spec(L) ⊂ [0, B]. It is the minimum of three bounds:
//
//   - Bernstein ellipse (Trefethen, ATAP Thm 8.1: |c_k| ≤ 2Mρ^{−k} with
//     M = max over E_ρ of |f| = e^{a((ρ+1/ρ)/2 − 1)}), at ρ = r + √(1+r²), r = K/a:
//
//     E_K(a) ≤ 2·exp(a(√(1+r²) − 1) − K·asinh r) / (r + √(1+r²) − 1);
//
//   - small a (from (m+k)! ≥ m!·k!, so e^{−a}I_k(a) ≤ (a/2)^k/k!), valid for K+2 > a/2:
//
//     E_K(a) ≤ 2·(a/2)^{K+1}/(K+1)! / (1 − a/(2(K+2)));
//
//   - the trivial E_K(a) ≤ 1 − e^{−a}I_0(a) ≤ 1.
//
// The result is rounded up by a relative 1e−9 to cover the rounding in its
// own evaluation. It panics if K < 0 or a is negative or NaN.
func ChebyshevTailBound(a float64, K int) float64 {
	if K < 0 || !(a >= 0) {
		panic("expm: ChebyshevTailBound needs K ≥ 0 and a ≥ 0")
	}
	if a == 0 {
		return 0
	}
	best := 1.0
	if K > 0 && !math.IsInf(a, 1) {
		k := float64(K)
		r := k / a
		s := math.Sqrt(1 + r*r)
		// a(√(1+r²) − 1) = K·r/(√(1+r²)+1), stable for small r.
		expo := k*r/(s+1) - k*math.Asinh(r)
		den := r + s - 1
		if den > 0 {
			if e := 2 * math.Exp(expo) / den; e < best {
				best = e
			}
		}
	}
	if k2 := float64(K + 2); k2 > a/2 {
		lg, _ := math.Lgamma(float64(K + 2)) // ln (K+1)!
		l := math.Log(2) + float64(K+1)*math.Log(a/2) - lg - math.Log1p(-a/(2*k2))
		if e := math.Exp(l); e < best {
			best = e
		}
	}
	return best * (1 + 1e-9)
}

// chebyshevTails returns, for K = 0..k2 (ie = BesselIe(a, k2)), upper
// bounds on E_K(a) from the coefficients themselves: their sum beyond K up
// to k2, widened by coefTailSlack, plus ChebyshevTailBound(a, k2) for the
// orders beyond k2 — each the smaller of this and ChebyshevTailBound(a, K).
// Since |T_k| ≤ 1 on [−1, 1], Σ_{k>K} |c_k| bounds the truncation error,
// and the ellipse bound is about √(2πa) times that sum for large a (it
// bounds each coefficient, not their tail): at the audit's tolerance on
// LFR 2·10⁴ (a ≈ 152) the degree falls by about a ninth. The widening
// covers the coefficients' relative error θ (Chebyshev: the same trust
// the rounding margin puts in them, checked against 60-digit series) and
// the rounding of the sum, by orders of magnitude.
func chebyshevTails(a float64, ie []float64) []float64 {
	k2 := len(ie) - 1
	rest := ChebyshevTailBound(a, k2)
	tails := make([]float64, k2+1)
	sum := 0.0 // Σ_{k=K+1}^{k2} 2·e^{−a}·I_k(a)
	for K := k2; K >= 0; K-- {
		tails[K] = math.Min(ChebyshevTailBound(a, K), sum*(1+coefTailSlack)+rest)
		sum += 2 * ie[K]
	}
	return tails
}

// coefTailSlack is the relative widening of a tail summed from computed
// coefficients (chebyshevTails).
const coefTailSlack = 1e-6

// ChebyshevTail returns an upper bound on E_K(a): the coefficients' own tail
// (chebyshevTails) up to the order k₂ at which the ellipse bound is a
// millionth of its value at K, the ellipse bound beyond, or the ellipse
// bound ChebyshevTailBound(a, K) where that is smaller.
func ChebyshevTail(a float64, K int) float64 {
	e := ChebyshevTailBound(a, K)
	if e == 0 || math.IsInf(a, 1) {
		return e
	}
	k2 := K + 1
	for ChebyshevTailBound(a, k2) > 1e-6*e {
		k2++
	}
	return chebyshevTails(a, BesselIe(a, k2))[K]
}

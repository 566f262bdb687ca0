package expm

import "math"

// BesselIe returns e^{−a}·I_k(a) for k = 0..K, the exponentially scaled
// modified Bessel functions of the first kind. They are the Chebyshev
// coefficients of e^{−τx} on [0, B] with a = τB/2 (see Chebyshev).
//
// For a ≥ 1 it uses Miller's backward recurrence
//
//	I_{k−1}(a) = (2k/a)·I_k(a) + I_{k+1}(a),
//
// started at k₀ = K + 32 + ⌈12√a⌉ with y_{k₀+1} = 0, y_{k₀} = 1 (rescaled on
// overflow) and normalised with the exact identity
//
//	e^{−a}·[I_0(a) + 2·Σ_{k≥1} I_k(a)] = 1,
//
// so the result is scaled by e^{−a} without ever forming e^{a} (no overflow
// for large a). Since e^{−a}I_k(a) ≈ exp(−k²/2a)/√(2πa), the neglected
// start-up error is below e^{−72} relative. For 0 < a < 1 it sums the power
// series I_k(a) = Σ_m (a/2)^{2m+k}/(m!(m+k)!) directly.
// Reference: W. Gautschi, SIAM Review 9 (1967), §3 (Miller's algorithm);
// Abramowitz & Stegun 9.6.10, 9.6.26, 9.6.37.
//
// BesselIe panics if K < 0 or a is negative, NaN or infinite.
func BesselIe(a float64, K int) []float64 {
	if K < 0 || !(a >= 0) || math.IsInf(a, 1) {
		panic("expm: BesselIe needs K ≥ 0 and finite a ≥ 0")
	}
	out := make([]float64, K+1)
	switch {
	case a == 0:
		out[0] = 1
		return out
	case a < 1:
		besselSeries(out, a)
		return out
	}
	k0 := BesselStartIndex(a, K)
	const big, small = 1e250, 1e-250
	var yp1 float64 // y_{k+1}
	yk := 1.0       // y_k, starting at k = k0
	sum := 0.0
	for k := k0; k >= 1; k-- {
		if k <= K {
			out[k] = yk
		}
		sum += 2 * yk
		ym1 := (2*float64(k)/a)*yk + yp1
		yp1, yk = yk, ym1
		if yk > big {
			yk *= small
			yp1 *= small
			sum *= small
			for j := k; j <= K; j++ {
				out[j] *= small
			}
		}
	}
	sum += yk
	out[0] = yk
	inv := 1 / sum
	for k := range out {
		out[k] *= inv
	}
	return out
}

// besselSeries fills out[k] = e^{−a}I_k(a) from the power series, for 0 < a < 1.
func besselSeries(out []float64, a float64) {
	h := a / 2
	q := h * h
	ea := math.Exp(-a)
	lead := 1.0 // (a/2)^k / k!
	for k := range out {
		if k > 0 {
			lead *= h / float64(k)
		}
		if lead == 0 {
			break // underflow: the rest are exactly representable as 0
		}
		s, t := 1.0, 1.0
		for m := 1; m < 60; m++ {
			t *= q / (float64(m) * float64(m+k))
			s += t
			if t < 1e-18*s {
				break
			}
		}
		out[k] = ea * lead * s
	}
}

// BesselStartIndex is the index k₀ = K + 32 + ⌈12√a⌉ at which BesselIe
// starts Miller's backward recurrence for orders 0..K at a ≥ 1. Rounding
// allowances that grow with the length of the recurrence (the certified
// sensitivity's among them) must use this function, so that they follow
// any change to where the recurrence starts.
func BesselStartIndex(a float64, K int) int {
	return K + 32 + int(math.Ceil(12*math.Sqrt(a)))
}

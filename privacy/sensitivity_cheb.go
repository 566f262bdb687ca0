package privacy

// Private Chebyshev helpers for the sparse path. They mirror the expm API
// planned by engineer B (LambdaMaxBound, BesselIe, ChebyshevTailBound) and
// can be replaced by it once it lands; the formulas are notes/expm.md §1.1–1.2.

import (
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
)

// lambdaMaxBound returns a certified upper bound B ≥ λ_max(L):
//
//	B = min(2·d_max, max_{(i,j)∈E} (d_i + d_j), max_i (d_i + m_i)) · (1 + 1e−12),
//	m_i = Σ_j w_ij d_j / d_i
//
// (Gershgorin; Anderson–Morley; Merris — all valid for non-negative weights
// since ρ(L) ≤ ρ(D + W), notes/expm.md §1.2). The factor covers rounding.
func lambdaMaxBound(g *laplacian.Graph) float64 {
	deg := g.Degrees()
	gersh := 2 * g.MaxDegree()
	am, merris := 0.0, 0.0
	for i := 0; i < g.N(); i++ {
		if deg[i] == 0 {
			continue
		}
		cols, ws := g.Neighbors(i)
		s := 0.0
		for k, j := range cols {
			w := 1.0
			if ws != nil {
				w = ws[k]
			}
			s += w * deg[j]
			am = math.Max(am, deg[i]+deg[j])
		}
		merris = math.Max(merris, deg[i]+s/deg[i])
	}
	return math.Min(gersh, math.Min(am, merris)) * (1 + 1e-12)
}

// besselIe returns e^{−a}·I_k(a) for k = 0..K (a ≥ 0), by Miller's backward
// recurrence I_{k−1} = (2k/a)·I_k + I_{k+1} started well above K and
// normalised with the identity e^{−a}[I₀(a) + 2Σ_{k≥1} I_k(a)] = 1, so no
// overflow occurs at large a.
func besselIe(a float64, K int) []float64 {
	out := make([]float64, K+1)
	if a == 0 {
		out[0] = 1
		return out
	}
	k0 := K + 30 + int(10*math.Sqrt(a))
	vals := make([]float64, k0+2)
	vals[k0+1] = 0
	vals[k0] = 1e-300
	for k := k0; k >= 1; k-- {
		vals[k-1] = (2*float64(k)/a)*vals[k] + vals[k+1]
		if vals[k-1] > 1e250 {
			for j := k - 1; j <= k0; j++ {
				vals[j] *= 1e-250
			}
		}
	}
	s := vals[0]
	for k := 1; k <= k0; k++ {
		s += 2 * vals[k]
	}
	for k := 0; k <= K; k++ {
		out[k] = vals[k] / s
	}
	return out
}

// chebTailBound bounds E_K(a) = 2 Σ_{k>K} e^{−a} I_k(a), the sup-norm error of
// the degree-K Chebyshev truncation of e^{−a(1+y)} on [−1, 1], by the smaller
// of the Bernstein-ellipse bound (Trefethen, ATAP Thm 8.2, ρ = r + √(1+r²),
// r = K/a)
//
//	E_K(a) ≤ 2·exp(a(√(1+r²) − 1) − K·asinh(r)) / (r + √(1+r²) − 1)
//
// and the small-a bound 2(a/2)^{K+1}/(K+1)! / (1 − a/(2(K+2))) (K+2 > a/2).
// Both are proven in notes/expm.md §1.1.
func chebTailBound(a float64, K int) float64 {
	if a == 0 {
		return 0
	}
	kf := float64(K)
	best := math.Inf(1)
	if K > 0 {
		r := kf / a
		sq := math.Sqrt(1 + r*r)
		if den := r + sq - 1; den > 0 {
			best = 2 * math.Exp(a*(sq-1)-kf*math.Asinh(r)) / den
		}
	}
	if kf+2 > a/2 {
		lg, _ := math.Lgamma(kf + 2)
		v := 2 * math.Exp((kf+1)*math.Log(a/2)-lg) / (1 - a/(2*(kf+2)))
		best = math.Min(best, v)
	}
	// A small relative margin for the rounding in evaluating the bound.
	return best * (1 + 1e-10)
}

// chebDegree returns the smallest K ≥ 1 with chebTailBound(a, K) ≤ tol.
func chebDegree(a, tol float64) int {
	if a == 0 {
		return 1
	}
	lo, hi := 1, 8
	for chebTailBound(a, hi) > tol {
		lo = hi
		hi *= 2
		if hi > 1<<24 {
			return hi
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if chebTailBound(a, mid) <= tol {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

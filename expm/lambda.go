package expm

import (
	"github.com/graphcloak/graphcloak/laplacian"
)

const unitRoundoff = 0x1p-53

// LambdaMaxBound returns a certified upper bound B ≥ λ_max(L) for the
// Laplacian L = D − W of g, in O(|E|):
//
//	B = min( 2·max_i d_i,                 Gershgorin
//	         max_{(i,j)∈E} (d_i + d_j),   Anderson–Morley
//	         max_i (d_i + m_i),           Merris, m_i = Σ_j w_ij d_j / d_i
//	         max_i (Q·x)_i / x_i )        Collatz–Wielandt, x = Q⁸·d normalised
//	    · (1 + 1e−12 + (2Δ+8)·u)
//
// where Δ is the largest row length and u = 2^−53. All four bound the
// spectral radius of Q = D + W = |L| ≥ ρ(L) (Wielandt), which also bounds
// ‖|L|‖₂ as used in the rounding analysis of Chebyshev; they hold for
// non-negative weights (docs/derivations.md §1.2). The relative slack covers the
// rounding in the degree sums and in this evaluation. A Lanczos or power
// iteration estimate is a lower bound and must never replace B.
// A graph without edges has L = 0 and B = 0.
func LambdaMaxBound(g *laplacian.Graph) float64 {
	b, _ := lambdaMaxBound(g)
	return b
}

// lambdaMaxBound also returns the largest row length Δ (neighbours + 1).
func lambdaMaxBound(g *laplacian.Graph) (B float64, maxRow int) {
	n := g.N()
	deg := g.Degrees()
	gersh := 2 * g.MaxDegree()
	am, merris := 0.0, 0.0
	for i := 0; i < n; i++ {
		cols, ws := g.Neighbors(i)
		if len(cols)+1 > maxRow {
			maxRow = len(cols) + 1
		}
		if len(cols) == 0 {
			continue
		}
		di := deg[i]
		s := 0.0
		for p, j := range cols {
			dj := deg[j]
			if t := di + dj; t > am {
				am = t
			}
			if ws == nil {
				s += dj
			} else {
				s += ws[p] * dj
			}
		}
		if t := di + s/di; t > merris {
			merris = t
		}
	}
	B = min(gersh, am, merris, g.SignlessRadiusBound())
	if B == 0 {
		return 0, maxRow
	}
	return B * (1 + 1e-12 + float64(2*maxRow+8)*unitRoundoff), maxRow
}

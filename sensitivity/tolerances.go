package sensitivity

// Named tolerances of the Δ2 certificates. Every bound below is rigorous in
// exact arithmetic and carries its own Higham γ_k terms (highamGamma) for the
// rounding of the long sums it bounds; these constants cover what is left:
// the handful of rounded operations that assemble the bound itself, each off
// by at most roundoffU = 2⁻⁵³ ≈ 1.1e-16 relative. Their values were chosen
// with a wide margin and are part of the certified numbers: changing one
// changes every reported Δ2 bound in its last digits.

// roundUp inflates an upper bound assembled from up to ~10³ rounded
// operations after its γ_k terms: 10³·roundoffU ≈ 1.1e-13 < 1e-12, so the
// inflated value stays above the exact one.
const roundUp = 1 + 1e-12

// roundDown is roundUp's mirror for lower bounds (a gap, a separation),
// which must stay below the exact value.
const roundDown = 1 - 1e-12

// lanczosRoundUp inflates the a-posteriori error terms of the Lanczos
// bound (lanczos.go), each a sum of a few terms scaled by n-length norms
// whose rounding is already in γ_{n+k}; the larger 1e-10 leaves room for the
// square roots and products taken of those sums (error.tex, Lanczos section).
const lanczosRoundUp = 1 + 1e-10

// relSlack is the absolute slack added to the relative error of a rounded
// modal coefficient (modes.go): it covers the rounding of the error formula
// itself, which is ~10 operations of size ≤ 1, so 1e-12 ≫ 10·roundoffU.
const relSlack = 1e-12

// absSlack is added after roundUp to bounds that can be ~0 (an edge's
// resistance bound, a mixing bound), where a relative margin covers
// nothing: 1e-15 is a few ulps of the O(1) values these bounds take.
const absSlack = 1e-15

// targetFloor is the smallest accuracy a Chebyshev or Lanczos stopping
// target may ask for: near 1, float64 resolves ~2.2e-16 (one ulp), so
// 1e-15 (≈ 5 ulps) is the finest target the arithmetic can meet.
const targetFloor = 1e-15

// acoshArgFloor keeps the argument of acosh in the Chebyshev degree estimate
// (modes.go) strictly above 1, where acosh(1) = 0 would divide by zero; the
// degree is then clamped to [8, 400] anyway.
const acoshArgFloor = 1 + 1e-12

// breakdownBeta is the Lanczos breakdown threshold: a β = ‖w‖ at or below
// it (80 orders below any β a graph Laplacian with O(1) weights produces, and
// near the smallest normal float64 2.2e-308) counts as an exact breakdown,
// v_{k+1} = 0, instead of normalising by it.
const breakdownBeta = 1e-300

// Package privacy computes the sensitivity of a diffusion measurement,
// calibrates Gaussian noise to it, draws the noise, and keeps the ledger
// of privacy spent.
//
// Conventions:
//
//   - Neighbouring source vectors f, f' have equal mass and EMD(f, f') ≤ α.
//     For a measurement matrix M on locations with a path metric d, the L2
//     sensitivity is
//
//     Δ2 = α · max over adjacent locations (i, j) of ‖M_i − M_j‖₂ / d(i, j)
//
//     (M_i is column i). On a graph, adjacent means an edge and d = 1 hop;
//     on the unit interval's source grid, d = 1/n.
//
//   - Every Δ2 this package reports is exact or a proven upper bound, and
//     says which; it is rounded up, never estimated.
//
//   - Calibrate returns the analytic Gaussian σ (Balle & Wang 2018, Thm 8)
//     by default, the classic σ for ε < 1 on request. Release samples a
//     discrete Gaussian on a grid γ = 2^-k (Canonne, Kamath & Steinke 2020)
//     and calibrates σ with the accounting proven for it: ρ-zCDP with the
//     CKS20 conversion to (ε, δ), on the rounding-widened Δ + γ√n.
//
//   - Privacy is accounted in zCDP: one release costs ρ = Δ²/(2σ²); costs add.
//
//   - Released noise comes from crypto/rand or from a keyed ChaCha20 stream,
//     never from math/rand.
package privacy

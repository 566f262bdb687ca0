// Package privacy calibrates Gaussian noise to a sensitivity, draws the
// noise, and keeps the ledger of privacy spent. The sensitivity Δ2 itself
// comes from package sensitivity (the Δ2 engine and its certificates),
// which this package does not import: mechanisms take Δ2 as a number.
//
// Conventions:
//
//   - Δ2 is the L2 sensitivity of the released measurement under
//     α-neighbouring sources (package sensitivity states it); every Δ2
//     given to Calibrate or Release must be exact or a proven upper bound.
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

// Package expm computes the heat-diffusion operator exp(−τL) of a graph
// Laplacian L = D − W, and the 1-D heat kernel on the unit interval.
//
// Conventions:
//   - τ > 0 is the diffusion time; exp(−τL) is symmetric, entrywise
//     non-negative and preserves mass (its rows sum to 1).
//   - Small graphs use a dense symmetric eigendecomposition L = QΛQᵀ.
//     Large graphs use the action exp(−τL)V by a Chebyshev expansion on
//     [0, B], where B is a certified upper bound on λ_max(L); every action
//     reports a rigorous bound on ‖exp(−τL) − p_K(L)‖₂.
//   - Blocks of vectors are row-major n×b slices: X[i*b+c] is entry i of
//     vector c, the layout of mat.Dense's raw data.
package expm

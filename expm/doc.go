// Package expm computes the heat-diffusion operator exp(−τL) of a graph
// Laplacian L = D − W, and the 1-D heat kernel on the unit interval.
//
// Conventions:
//   - τ > 0 is the diffusion time; exp(−τL) is symmetric, entrywise
//     non-negative and preserves mass (its rows sum to 1). A disconnected
//     graph diffuses within each component; a graph without edges has
//     L = 0 and exp(−τL) = I.
//   - Small graphs use a dense symmetric eigendecomposition L = QΛQᵀ
//     (Decompose, Eigen). A dense n×n matrix is never allocated above a
//     configurable limit (DefaultDenseLimit = 4000): *TooLargeError instead.
//   - Large graphs use the action exp(−τL)V by a Chebyshev expansion on
//     [0, B], where B is a certified upper bound on λ_max(L)
//     (LambdaMaxBound; never a Lanczos estimate, which is a lower bound).
//     Every Chebyshev action reports ErrorBound(), a rigorous bound on
//     ‖exp(−τL) − p̂_K(L)‖₂ covering truncation (Bernstein ellipse) and
//     floating-point rounding, so each output column is within
//     ErrorBound()·‖x‖₂ of the exact one. The only heuristic ingredient is
//     the relative accuracy assumed for the Bessel coefficients (see
//     Chebyshev). The dense path's margin (Eigen.EigenErrorBound,
//     ExpErrorBound) rests on a heuristic backward-error constant p(n) = n.
//   - NewAction chooses between the two (Method Auto/Dense/Sparse) by size
//     and a documented cost model.
//   - Blocks of vectors are row-major n×b slices: X[i*b+c] is entry i of
//     vector c, the layout of mat.Dense's raw data.
//   - Invalid parameters return *ParamError naming the parameter; shape
//     mismatches panic.
package expm

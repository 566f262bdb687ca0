// Package sensitivity is graphcloak's Δ2 engine: the L2 sensitivity of a
// diffusion measurement, exact or a proven upper bound, and the
// certificates that store it. Package privacy calibrates and draws the
// noise for the Δ2 it returns; the two packages do not import each other.
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
//   - On a graph (Graph), M = exp(−τL): L = D − W is the weighted
//     Laplacian of package laplacian (D the weighted degree), and τ > 0 is
//     the diffusion time, the released model's heat-kernel time. Edge
//     weights change L, not the metric, so
//
//     Δ2 = α · max over edges (i, j) of ‖exp(−τL)(e_i − e_j)‖₂.
//
//     Line is the 1-D heat kernel on the unit interval, Matrix a
//     user-supplied M with declared adjacent pairs.
//
//   - Every Δ2 this package reports is exact or a proven upper bound, and
//     says which (Result.Exact, Result.Slack); it is rounded up, never
//     estimated. Options choose the method (dense eigendecomposition,
//     Chebyshev columns, Lanczos edge brackets, slow modes) and may stop it
//     early (TimeBudget, Done) at a certified upper bound; ChooseMethod is the
//     cost model that chooses the method, the one function the dry run
//     and the computation both call.
//
//   - A Certificate stores a Δ2 with the fingerprint of the exact graph, τ
//     and α it holds for; a caller uses it instead of recomputing Δ2 only
//     after Certificate.Verify against the graph and parameters at hand.
//     Seal and CheckMAC authenticate it with a MAC key given as bytes
//     (privacy.Key.CertificateMACKey derives it from the ledger key).
//
//   - Errors carry errkind kinds (ParamError, PairError and
//     CertificateMismatchError are BadInput) and are matched with
//     errors.Is and errors.As, never by message.
package sensitivity

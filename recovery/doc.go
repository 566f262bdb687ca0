// Package recovery estimates diffusion sources from noisy measurements
// ỹ = M f0 + noise and scores estimates with the earth mover's distance.
//
// Conventions:
//   - Sources f live on n locations, measurements on m sensors; M is m×n.
//   - Estimators report an explicit outcome: solved (with a certificate),
//     infeasible (with a certificate), or no detectable source. They never
//     invent an answer.
//   - EMD compares mass-normalised vectors under the locations' path
//     metric (hops on a graph, |x − x'| on a line).
package recovery

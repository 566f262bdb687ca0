// Package laplacian holds graphcloak's graph type and its Laplacian.
//
// Conventions:
//   - A Graph is weighted and undirected, stored as CSR adjacency: both
//     directions of every edge are present, neighbours sorted by index.
//   - Nodes have dense int indices 0..n-1 and stable string keys (the Neo4j
//     node key, a CSV identifier, or the decimal index for generators).
//     Index i is also the gonum graph.Node ID.
//   - Weights are positive and finite. Self-loops are rejected (they do not
//     change L = D − W). Duplicate edges are merged by summing their weights,
//     the same Laplacian a multigraph has; the number merged is reported.
//   - The Laplacian is L = D − W with D the weighted degree; it is positive
//     semidefinite with one zero eigenvalue per connected component.
//     Disconnected graphs are legitimate.
package laplacian

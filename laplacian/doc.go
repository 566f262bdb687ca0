// Package laplacian holds graphcloak's graph type and its Laplacian.
//
// Conventions:
//   - A Graph is weighted and undirected, stored as CSR adjacency: both
//     directions of every edge are present, neighbours sorted by index.
//     Unit-weight graphs store no weight array.
//   - Nodes have dense int indices 0..n-1 and stable string keys (the Neo4j
//     node key, a CSV identifier, or the decimal index for generators).
//     Index i is also the gonum graph.Node ID: *Graph implements
//     graph.WeightedUndirected, so gonum algorithms (community.Modularize,
//     path.DijkstraFrom, …) run on it without copying.
//   - Weights are positive and finite. Self-loops are skipped and counted
//     (Graph.Merges), their nodes kept: a loop adds its weight to D and W
//     alike, so L = D − W is the same without it; every source (an edge
//     list, Neo4j, a dataset) builds through FromEdges and follows this
//     one rule. A pair given more than once, in either orientation,
//     follows Options.Duplicates (DuplicateRule): by default rows of equal
//     weight are one edge (an edge list written in both directions is the
//     graph written once) and rows of different weights are refused;
//     DuplicatesSum adds them (the multigraph's Laplacian), DuplicatesReject
//     refuses any. Graph.Merges reports what was merged and how.
//   - The Laplacian is L = D − W with D the weighted degree; it is positive
//     semidefinite with one zero eigenvalue per connected component.
//     Disconnected graphs are legitimate; Graph.Components counts them.
//
// Graphs come from FromEdges, the generators (SBM, Grid, Path, Cycle,
// Complete, Star, Karate, PreferentialAttachment, RandomGeometric), a CSV
// edge list (ReadCSV, LoadCSV), or a graph spec string as used by the CLI
// (ParseSpec, Generate), e.g.
// "sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7".
//
// Graph.Fingerprint identifies a graph exactly (keys, edges, weights) so
// that stored results, such as a Δ2 certificate, can be checked against
// the graph they are used with.
package laplacian

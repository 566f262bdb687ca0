// Package community finds or accepts a partition of a graph's nodes into
// communities and aggregates recovered source mass or posterior
// probability per community into a ranked source-community report.
//
// Conventions:
//   - A partition is a []int of community ids indexed like the graph's
//     nodes; ids are dense, 0..k−1.
//   - Detected communities are split into connected pieces; detection is
//     deterministic for a given seed.
package community

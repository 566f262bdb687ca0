// Package graphcloak is the library's API: the pipeline steps a Go program
// calls on a loaded graph. Release computes the privacy sensitivity of
// exp(−τL) and releases private per-node values against a ledger; Locate
// recovers the source from the released values alone and ranks the
// source communities; Estimate is a release's dry run. ReadValues and
// ValuesByKey turn a gateway's readings into what Release takes.
//
// The private answer (the operator publishes only the source community)
// is package answer; the certified Δ2 of a graph, whole or sharded, is
// sensitivity.Certify. The CLI in cmd/graphcloak builds on both.
package graphcloak

//go:build race

package graphcloak

// simRaceEnabled: the race detector slows the numerical kernels ~10×, so
// the long statistical experiment test is skipped under -race (the short
// ones still exercise the parallel trial loop).
const simRaceEnabled = true

// Package peakmem measures the process's peak resident memory, which a
// dry run adds to a computation's modelled bytes: the real run's peak
// also holds the binary, the Go runtime and the loaded graph (about
// 25 MiB on a 1 000-node graph, where the computation itself needs
// 2–7 MiB).
package peakmem

//go:build linux

package main

import "syscall"

// processPeakBytes is the process's peak resident memory so far (Linux
// getrusage, in KiB there), 0 when unknown. A dry run adds it to the
// computation's modelled bytes: the real run's peak RSS also holds the
// binary, the Go runtime and the loaded graph (about 25 MiB on a
// 1 000-node graph, where the computation itself needs 2–7 MiB).
func processPeakBytes() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}

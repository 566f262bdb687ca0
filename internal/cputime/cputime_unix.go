//go:build unix

package cputime

import "syscall"

// Process is the CPU time the process has used, user and system, in
// seconds (−1: not told).
func Process() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}

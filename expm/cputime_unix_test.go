//go:build unix

package expm

import "syscall"

// cpuSeconds is the process's user+system CPU time so far (0 when it
// cannot be read): a benchmark on a shared host quotes it beside wall.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}

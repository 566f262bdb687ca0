//go:build linux

package expm

import "golang.org/x/sys/unix"

// threadCPU is the CPU time the calling thread has used, in seconds (−1:
// not told).
func threadCPU() float64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

//go:build linux

package peakmem

import "syscall"

// Bytes is the process's peak resident memory so far (Linux getrusage,
// in KiB there), 0 when unknown.
func Bytes() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}

//go:build !unix

package expm

// cpuSeconds is not read on this system.
func cpuSeconds() float64 { return 0 }

//go:build !linux

package expm

// threadCPU is not told here: MeasureStepRate times rounds by the wall.
func threadCPU() float64 { return -1 }

//go:build !amd64 || purego

package expm

// blockKernels: the Go path is the only kernel here.
var blockKernels = []struct {
	name string
	run  func(f func())
}{{"go", func(f func()) { f() }}}

//go:build !linux

package peakmem

import "runtime/metrics"

// Bytes approximates the process's resident memory by the Go runtime's
// mapped memory (the binary's pages are not counted), 0 when unknown.
// See the Linux version.
func Bytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

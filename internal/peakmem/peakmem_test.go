package peakmem

import (
	"runtime"
	"testing"
)

// The peak covers at least what the process holds: the heap in use, and
// 64 MiB more once they are touched.
func TestBytes(t *testing.T) {
	before := Bytes()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if before < int64(ms.HeapInuse) {
		t.Fatalf("peak %d B below the heap in use, %d B", before, ms.HeapInuse)
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1 // touched, so resident
	}
	if after := Bytes(); after < before+32<<20 {
		t.Errorf("peak %d B after touching 64 MiB, was %d B", after, before)
	}
	runtime.KeepAlive(buf)
}

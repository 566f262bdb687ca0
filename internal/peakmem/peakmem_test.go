package peakmem

import (
	"runtime"
	"testing"
)

// The peak covers at least what the process holds now: the heap in use,
// before and after 64 MiB more are allocated and touched. (Not "the peak
// grew by 64 MiB": an earlier peak may already cover the new bytes.)
func TestBytes(t *testing.T) {
	check := func(when string) {
		t.Helper()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if peak := Bytes(); peak < int64(ms.HeapInuse) {
			t.Errorf("%s: peak %d B below the heap in use, %d B", when, peak, ms.HeapInuse)
		}
	}
	check("at the start")
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1 // touched, so resident
	}
	check("after touching 64 MiB")
	runtime.KeepAlive(buf)
}

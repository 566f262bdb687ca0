package privacy

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns this process's user + system CPU time, so throughput can
// be reported per CPU second on a shared, loaded machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkKeyedDiscreteGaussian draws 10^6 keyed discrete Gaussian values
// per op, each from its own HKDF-derived ChaCha20 stream, as Release does:
// go test ./privacy -run '^$' -bench KeyedDiscreteGaussian -benchtime 3x
func BenchmarkKeyedDiscreteGaussian(b *testing.B) {
	const n = 1000000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("node-%d", i)
	}
	var k Key
	copy(k[:], "benchmark key")
	for _, s2 := range []uint64{1 << 22, 1 << 40} {
		b.Run(fmt.Sprintf("sigma=2^%d", map[uint64]int{1 << 22: 11, 1 << 40: 20}[s2]), func(b *testing.B) {
			p := noiseParams{scope: "bench", epoch: "e", s2: s2, k: 20}
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := keyedNoise(&k, p, keys); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
			b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-c0).Seconds(), "samples/cpu-s")
		})
	}
}

// BenchmarkSamplerOnly isolates the CKS sampler from key derivation (one
// ChaCha20 stream, no HKDF per value).
func BenchmarkSamplerOnly(b *testing.B) {
	g := newDGauss(1 << 40)
	src := testStream("bench")
	for i := 0; i < b.N; i++ {
		g.sample(src)
	}
}

// BenchmarkDerive isolates the per-value HKDF-Expand + ChaCha20 setup.
func BenchmarkDerive(b *testing.B) {
	var k Key
	d, _ := newDeriver(&k, noiseParams{scope: "s", epoch: "e", s2: 1 << 40, k: 20})
	var src chachaSource
	for i := 0; i < b.N; i++ {
		src.reset(d.derive("node-123456", 0))
		src.Uint64()
	}
}

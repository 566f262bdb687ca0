package sensor

import (
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user + system CPU time (the machine may be
// shared: report per CPU second too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReport draws one report:
//
//	go test ./sensor -run '^$' -bench BenchmarkReport -benchtime 2000x
//
// draw: the sensor's cryptographic work for a verified order — value key
// (HKDF: 3 HMAC-SHA256), ChaCha20, the discrete Gaussian at σ̃ = 2^20, the
// report MAC. full: Sensor.Report end to end — Ed25519 verification and
// strict parsing of the order, the policy, and the odometer written and
// fsynced (file and directory) in t.TempDir(): dominated by the fsyncs of
// the machine's disk.
func BenchmarkReport(b *testing.B) {
	o := testOrder()
	key := Key(SensorKey(testMaster, "n2"))
	b.Run("draw", func(b *testing.B) {
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			if _, err := drawReport(o, strings.Repeat("ab", 32), key, "n2", 1234567); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("full", func(b *testing.B) {
		priv := testCoordinator("a")
		envs := make([][]byte, b.N)
		for i := range envs {
			oi := o
			oi.Epoch = fmt.Sprint("bench-", i)
			envs[i], _ = SignOrder(priv, oi)
		}
		dir := b.TempDir()
		s := &Sensor{Coordinator: priv.Public().(ed25519.PublicKey), Node: "n2", Key: key,
			Now: func() time.Time { return o.NotBefore.Add(time.Minute) }}
		b.ResetTimer()
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			s.Odometer = filepath.Join(dir, fmt.Sprint(i)) // one entry per file: no growth
			if _, err := s.Report(envs[i], 21.5); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}

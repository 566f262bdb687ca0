package community

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZLFR(t *testing.T) {
	path := os.Getenv("LFR")
	if path == "" {
		t.Skip()
	}
	t0, c0 := time.Now(), cpuNow()
	g, err := laplacian.LoadCSV(path, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load wall %v cpu %v", time.Since(t0), cpuNow()-c0)
	conc, _ := strconv.Atoi(os.Getenv("CONC"))
	for r := 0; r < 2; r++ {
		t0, c0 = time.Now(), cpuNow()
		p, _ := Leiden(g, LeidenOptions{Seed: 1, Concurrency: conc})
		t.Logf("n=%d m=%d wall %v cpu %v Q=%.5f k=%d", g.N(), g.NumEdges(), time.Since(t0), cpuNow()-c0, Modularity(g, p, 1), maxLabel(p)+1)
	}
}

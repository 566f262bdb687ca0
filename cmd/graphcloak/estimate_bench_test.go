//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
)

// BenchmarkCommandEstimates compares what plan --estimate and release
// --dry-run --estimate say (the sum of their modelled steps: Δ2, the
// answer audit and the simulated releases for plan; the dry run's
// forecasts — the unit forecast's rounds, the private answer's, the
// forecast by source mass — for the dry run) with the commands they
// estimate, run in full just after, on the graph specs of
// GRAPHCLOAK_ESTIMATE_GRAPHS (space-separated; generator specs or
// file:PATH; default a 2 000-node preferential attachment graph) at τ = 1,
// ε = 1. It reports, per command, estimate-s, actual-s, actual/estimate
// (issue 61's goal: within 2×) and cpu-s/cores, the run's CPU time over
// GOMAXPROCS (its wall time on a quiet host: the figure to compare on a
// shared one). Run with -benchtime 1x.
func BenchmarkCommandEstimates(b *testing.B) {
	specs := strings.Fields(os.Getenv("GRAPHCLOAK_ESTIMATE_GRAPHS"))
	if len(specs) == 0 {
		specs = []string{"pa:n=2000,m=3,seed=1"}
	}
	isolateConfig(b)
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	for _, spec := range specs {
		b.Run(filepath.Base(spec), func(b *testing.B) {
			dir := b.TempDir()
			readings := benchReadings(b, spec, filepath.Join(dir, "readings.csv"))
			ledger := filepath.Join(dir, "l.json")
			benchRun(b, []string{"budget", "--init", "--ledger", ledger, "--epsilon-total", "100", "--delta-total", "1e-3"})
			commands := []struct {
				name string
				args []string
			}{
				{"plan", []string{"plan", "--graph", spec, "--tau", "1", "--epsilon", "1", "--cache-dir", "none"}},
				{"dry-run", []string{"release", "--graph", spec, "--tau", "1", "--epsilon", "1", "--delta", "1e-6", "--values", readings, "--ledger", ledger, "--dry-run"}},
			}
			for b.Loop() {
				for _, c := range commands {
					var est struct {
						Seconds float64 `json:"seconds"`
					}
					out := benchRun(b, append(c.args, "--estimate", "-o", "json"))
					if err := json.Unmarshal([]byte(out), &est); err != nil {
						b.Fatalf("%s --estimate: %v\n%s", c.name, err, out)
					}
					start, cpu0 := time.Now(), cpuSeconds()
					benchRun(b, append(c.args, "-o", "json", "-q"))
					actual, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
					b.ReportMetric(est.Seconds, c.name+"-estimate-s")
					b.ReportMetric(actual, c.name+"-actual-s")
					b.ReportMetric(actual/est.Seconds, c.name+"-actual/estimate")
					b.ReportMetric(cpu/float64(runtime.GOMAXPROCS(0)), c.name+"-cpu-s/cores")
				}
			}
		})
	}
}

// benchRun runs a command and returns its standard output.
func benchRun(b *testing.B, args []string) string {
	b.Helper()
	var out, errb strings.Builder
	if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
		b.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// benchReadings writes readings of spec's graph to path (1 at its first
// node, 0 elsewhere) and returns the path.
func benchReadings(b *testing.B, spec, path string) string {
	b.Helper()
	var g *laplacian.Graph
	var err error
	if file, ok := strings.CutPrefix(spec, "file:"); ok {
		g, err = laplacian.LoadCSV(file, laplacian.Options{})
	} else {
		g, _, err = laplacian.Generate(spec)
	}
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i, k := range g.Keys() {
		v := 0
		if i == 0 {
			v = 1
		}
		fmt.Fprintf(&sb, "%s,%d\n", k, v)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// cpuSeconds is the process's user+system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}

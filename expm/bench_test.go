package expm

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
)

// BenchmarkChebyshevApply: exp(−τL)X, τ = 2, tol = 1e−10, on a random graph
// with average degree 10 (fixed seed).
func BenchmarkChebyshevApply(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		g := randomGraph(b, n, 10, false, 1)
		c, err := NewChebyshev(g.Laplacian(), 2, 1e-10)
		if err != nil {
			b.Fatal(err)
		}
		for _, cols := range []int{1, 16} {
			b.Run(fmt.Sprintf("n=%d/b=%d/K=%d", n, cols, c.Degree()), func(b *testing.B) {
				x := make([]float64, n*cols)
				for i := range x {
					x[i] = float64(i%7) - 3
				}
				dst := make([]float64, n*cols)
				b.ReportAllocs()
				for b.Loop() {
					c.Apply(dst, x, cols)
				}
			})
		}
	}
}

func BenchmarkDecompose(b *testing.B) {
	for _, n := range []int{250, 500, 1000} {
		g := randomGraph(b, n, 10, false, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Decompose(g, DenseOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChebyshevBlockRate: the block action's rate on the edge list
// GRAPHCLOAK_BENCH_GRAPH (skipped without it) at τ = 1, tolerance 1e−7 (the
// private answer's certificate's loose action) on blocks of 32 unit
// columns, one goroutine, with each kernel (Go, and AVX2 where the
// processor has it): ns per nonzero, column and step, the constant of the
// certificate's cost 2·n·K·(2|E| + n) (docs/sharding.md).
func BenchmarkChebyshevBlockRate(b *testing.B) {
	g, c := benchCertifierAction(b)
	c = c.WithWorkers(1)
	const cols = 32
	n := g.N()
	x, dst := make([]float64, n*cols), make([]float64, n*cols)
	for k := 0; k < cols; k++ {
		x[(k*n/cols)*cols+k] = 1
	}
	for _, k := range blockKernels {
		if !useAVX2 && k.name == "avx2" {
			continue
		}
		b.Run(k.name, func(b *testing.B) {
			k.run(func() {
				for b.Loop() {
					c.Apply(dst, x, cols)
				}
			})
			work := float64(b.N) * float64(c.Degree()) * float64(cols) * float64(2*g.NumEdges()+n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/work, "ns/nonzero·column·step")
			b.ReportMetric(float64(c.Degree()), "K")
		})
	}
}

// BenchmarkChebyshevBlockWidth: the certifier's pass at each block width
// (recovery's applyWidth) on the edge list GRAPHCLOAK_BENCH_GRAPH
// (skipped without it) at τ = 1, tolerance 1e−7: one block of unit
// columns per goroutine, GOMAXPROCS goroutines at once, each action
// parallel inside (as the pass ran it before issue 79's a80u) or on its
// own goroutine (as it runs now). It reports CPU (user + system)
// and wall ns per nonzero, column and step: CPU is what to compare on a
// shared machine (issue 79: 16 against 32 vectors).
func BenchmarkChebyshevBlockWidth(b *testing.B) {
	g, c := benchCertifierAction(b)
	for _, cols := range []int{8, 16, 32} {
		b.Run(fmt.Sprintf("b=%d", cols), func(b *testing.B) { benchPass(b, g, c, cols) })
		// As recovery's pass runs it since issue 79: each block's action
		// on its own goroutine (WithWorkers(1)).
		b.Run(fmt.Sprintf("b=%d/one-goroutine-a-block", cols), func(b *testing.B) { benchPass(b, g, c.WithWorkers(1), cols) })
	}
}

// BenchmarkChebyshevOrder: BenchmarkChebyshevBlockWidth's pass at 16
// columns with the graph in its own order and in the kernels' local order
// (localOrder), on a 300×300 grid numbered at random (an order with no
// locality, as a database or a generator may give) and on the edge list
// GRAPHCLOAK_BENCH_GRAPH when set.
func BenchmarkChebyshevOrder(b *testing.B) {
	graphs := []struct {
		name string
		g    *laplacian.Graph
	}{{"shuffled-grid", shuffledGrid(b, 300, 300, false, 1)}}
	if path := os.Getenv("GRAPHCLOAK_BENCH_GRAPH"); path != "" {
		graphs = append(graphs, struct {
			name string
			g    *laplacian.Graph
		}{"bench-graph", heattest.BenchGraph(b, path)})
	}
	for _, gr := range graphs {
		for _, order := range []string{"own", "local"} {
			b.Run(gr.name+"/order="+order, func(b *testing.B) {
				min := reorderMinNodes
				if order == "own" {
					min = math.MaxInt
				}
				var c *Chebyshev
				withReorderFrom(min, func() { c = mustChebyshev(b, gr.g, 1) })
				if (c.perm != nil) != (order == "local") {
					b.Skipf("the graph's own order is the local one")
				}
				benchPass(b, gr.g, c, 16)
			})
		}
	}
}

// BenchmarkChebyshevInCache: one action on a block of 16 or 32 columns of a random
// graph of 300 nodes (average degree 14), one goroutine (CPU and wall time): the block and the
// graph stay in the core's cache, so this is the kernel's compute floor
// per nonzero, column and step, the constant against which the rate on a
// graph that does not fit (BenchmarkChebyshevOrder) measures the time
// spent waiting on memory.
func BenchmarkChebyshevInCache(b *testing.B) {
	g := randomGraph(b, 300, 14, false, 1)
	c, err := NewChebyshev(g.Laplacian(), 1, 1e-7)
	if err != nil {
		b.Fatal(err)
	}
	c = c.WithWorkers(1)
	n := g.N()
	for _, cols := range []int{16, 32} {
		b.Run(fmt.Sprintf("b=%d", cols), func(b *testing.B) {
			x, dst := randomBlock(n, cols, 1), make([]float64, n*cols)
			cpu := cpuSeconds()
			for b.Loop() {
				c.Apply(dst, x, cols)
			}
			work := float64(b.N) * float64(c.Degree()) * float64(cols) * float64(2*g.NumEdges()+n)
			b.ReportMetric((cpuSeconds()-cpu)*1e9/work, "cpu-ns/nonzero·column·step")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/work, "ns/nonzero·column·step")
		})
	}
}

// benchPass runs GOMAXPROCS blocks of cols unit columns at once through c
// (each action parallel inside, as the certifier's pass runs it) and
// reports CPU (user + system) and wall ns per nonzero, column and step.
func benchPass(b *testing.B, g *laplacian.Graph, c *Chebyshev, cols int) {
	n, workers := g.N(), runtime.GOMAXPROCS(0)
	xs, dsts := make([][]float64, workers), make([][]float64, workers)
	for w := range xs {
		xs[w], dsts[w] = make([]float64, n*cols), make([]float64, n*cols)
		for k := 0; k < cols; k++ {
			xs[w][((w*cols+k)*n/(workers*cols))*cols+k] = 1
		}
	}
	cpu := cpuSeconds()
	for b.Loop() {
		var wg sync.WaitGroup
		for w := range xs {
			wg.Go(func() { c.Apply(dsts[w], xs[w], cols) })
		}
		wg.Wait()
	}
	work := float64(b.N) * float64(workers) * float64(c.Degree()) * float64(cols) * float64(2*g.NumEdges()+n)
	b.ReportMetric((cpuSeconds()-cpu)*1e9/work, "cpu-ns/nonzero·column·step")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/work, "ns/nonzero·column·step")
}

// benchCertifierAction is the certificate's loose action (τ = 1,
// tolerance 1e−7) on the edge list GRAPHCLOAK_BENCH_GRAPH, skipping the
// benchmark without it.
func benchCertifierAction(b *testing.B) (*laplacian.Graph, *Chebyshev) {
	g := heattest.BenchGraph(b, os.Getenv("GRAPHCLOAK_BENCH_GRAPH"))
	c, err := NewChebyshev(g.Laplacian(), 1, 1e-7)
	if err != nil {
		b.Fatal(err)
	}
	return g, c
}

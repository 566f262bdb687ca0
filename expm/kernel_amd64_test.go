//go:build !purego

package expm

import (
	"math/rand/v2"
	"testing"
)

// withGo runs f with the AVX2 kernel switched off.
func withGo(f func()) {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	f()
}

// TestRows8MatchesGo: the AVX2 kernels give the Go path's result bit for
// bit — every lane does the same operations in the same order — on
// weighted and unweighted graphs, blocks that run each kernel alone (8,
// 16, 32 columns), all three (61 = 32 + 16 + 8 + a four- and a one-column
// remainder), two 32-column groups, and remainders after one to three
// chunks, at a small and a large τ
// (a low and a high Chebyshev degree, so the first step, the in-place
// steps and the accumulation all run).
func TestRows8MatchesGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("this processor has no AVX2")
	}
	for _, weighted := range []bool{false, true} {
		g := randomGraph(t, 1500, 11, weighted, 7)
		n := g.N()
		for _, tau := range []float64{0.05, 300} {
			c, err := NewChebyshevOrFloor(g.Laplacian(), tau, 1e-12)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []int{8, 13, 16, 29, 32, 61, 64} {
				rng := rand.New(rand.NewPCG(uint64(b), 4))
				x := make([]float64, n*b)
				for i := range x {
					x[i] = rng.Float64() - 0.5
				}
				want, got := make([]float64, n*b), make([]float64, n*b)
				withGo(func() { c.Apply(want, x, b) })
				c.Apply(got, x, b)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("weighted=%v τ=%v b=%d: entry %d (row %d, column %d) is %v in AVX2, %v in Go", weighted, tau, b, i, i/b, i%b, got[i], want[i])
					}
				}
			}
		}
	}
}

// blockKernels are the block step's kernels BenchmarkChebyshevBlockRate
// compares: each runs f with its kernel.
var blockKernels = []struct {
	name string
	run  func(f func())
}{{"go", withGo}, {"avx2", func(f func()) { f() }}}

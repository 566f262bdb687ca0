package expm

import (
	"fmt"
	"testing"
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

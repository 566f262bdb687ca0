package privacy

import (
	"fmt"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// BenchmarkGraphSensitivity: random graph (one-block SBM, average degree
// 10, seed 1), τ = 2, default options (Auto). Targets on the 2-core
// reference machine: n = 2000 ≤ 5 s, n = 10⁴ ≤ 60 s.
func BenchmarkGraphSensitivity(b *testing.B) {
	for _, n := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			g, _, err := laplacian.SBM([]int{n}, 10/float64(n-1), 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				s, err := GraphSensitivity(g, 2, 1, GraphOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(s.Delta2, "delta2")
				b.ReportMetric(s.Slack, "slack")
			}
		})
	}
}

// BenchmarkBlockStep compares the column scheme's fixed-width kernel with
// laplacian.Operator.MulBlockAffine on one Chebyshev step (n = 10⁴, b = 16).
func BenchmarkBlockStep(b *testing.B) {
	g, _, err := laplacian.SBM([]int{10000}, 10.0/9999, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	n := g.N()
	x := make([]float64, n*columnBlock)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	z := make([]float64, n*columnBlock)
	b.Run("kernel", func(b *testing.B) {
		k := newBlockKernel(g)
		for range b.N {
			k.step(z, x, z, 0.1, -2, -1)
		}
	})
	b.Run("operator", func(b *testing.B) {
		op := g.Laplacian()
		for range b.N {
			op.MulBlockAffine(z, x, columnBlock, 0.1, -2, z, -1)
		}
	})
}

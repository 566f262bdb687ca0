package forecast

import (
	"context"
	"os"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
)

// BenchmarkRoutedCeilingEpsilons times plan's ceilings step: RoutedCeiling
// (the star and pair bounds, then the routed one) at plan's five ε, on a
// preferential-attachment graph of 4 000 nodes, or on the edge list
// GRAPHCLOAK_BENCH_GRAPH names (its Leiden communities, seed 1; LFR 2·10⁴:
// 127 of them). go test -bench RoutedCeilingEpsilons -cpuprofile for where.
func BenchmarkRoutedCeilingEpsilons(b *testing.B) {
	g, part := paLeiden(b)
	if path := os.Getenv("GRAPHCLOAK_BENCH_GRAPH"); path != "" {
		g = heattest.BenchGraph(b, path)
		var err error
		if part, err = community.Leiden(g, community.LeidenOptions{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, eps := range []float64{0.5, 1, 2, 4, 8} {
			if _, err := RoutedCeiling(context.Background(), g, part, eps, 1e-6); err != nil {
				b.Fatal(err)
			}
		}
	}
}

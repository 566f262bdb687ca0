package forecast

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/laplacian"
)

func TestZZLower(t *testing.T) {
	for _, name := range strings.Fields(os.Getenv("ZZ_GRAPHS")) {
		var g *laplacian.Graph
		var err error
		if strings.HasPrefix(name, "gt:") {
			gt, err := datasets.Open(os.Getenv("GRAPHCLOAK_DATASETS"), strings.TrimPrefix(name, "gt:"))
			if err != nil {
				t.Fatal(err)
			}
			g, _, _ = gt.Graph()
		} else if g, err = laplacian.LoadCSV(name, laplacian.Options{}); err != nil {
			t.Fatal(err)
		}
		part, _ := community.Leiden(g, community.LeidenOptions{Seed: 1})
		members := communityMembers(part)
		n, k := g.N(), len(members)
		for _, eps := range []float64{0.5, 1, 2, 4, 8} {
			c := Ceiling(g, part, eps, 1e-6)
			r := newRoutes(context.Background(), nil, g, part, members, make([]float64, n), eps)
			decay := hopDecay(eps)
			W, sum, sum1 := 0.0, 0.0, 0.0
			ws := make([]float64, n)
			for s := range n {
				for _, d := range r.hops[s*k : (s+1)*k] {
					if d >= 0 {
						ws[s] += decay[d]
					}
				}
				W = math.Max(W, ws[s])
			}
			pi := math.Min(1, 1/W)
			for s := range n {
				sum += math.Min(pi, math.Max(0, 1-ws[s]))
				sum1 += math.Max(0, 1-ws[s])
			}
			fmt.Printf("ZZL %s eps=%g ceiling=%.6f L=%.6f (no pi %.6f) W=%.3f\n", name, eps, c, sum/float64(n), sum1/float64(n), W)
		}
	}
}

package forecast

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/laplacian"
)

func TestZZCeilingBits(t *testing.T) {
	for _, name := range strings.Fields(os.Getenv("ZZ_GRAPHS")) {
		var g *laplacian.Graph
		var err error
		if strings.HasPrefix(name, "gt:") {
			gt, err := datasets.Open(os.Getenv("GRAPHCLOAK_DATASETS"), strings.TrimPrefix(name, "gt:"))
			if err != nil {
				t.Fatal(err)
			}
			g, _, err = gt.Graph()
			if err != nil {
				t.Fatal(err)
			}
		} else if g, err = laplacian.LoadCSV(name, laplacian.Options{}); err != nil {
			t.Fatal(err)
		}
		part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		k := len(communityMembers(part))
		for _, eps := range []float64{0.5, 1, 2, 4, 8} {
			t0 := time.Now()
			c := Ceiling(g, part, eps, 1e-6)
			r, _ := RoutedCeiling(context.Background(), g, part, eps, 1e-6)
			fmt.Printf("ZZ %s n=%d k=%d eps=%g ceiling=%.17g routed=%.17g diff=%.3g %v\n", name, g.N(), k, eps, c, r, c-r, time.Since(t0))
			_ = math.Inf
		}
	}
}

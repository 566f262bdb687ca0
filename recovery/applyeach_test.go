package recovery

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestApplyTEachIsApplyT: vectors applied 32 at a time (two full blocks
// and a short one) are each Mᵀz applied alone, to the action's rounding,
// filled in order; on a spectral (small) model too.
func TestApplyTEachIsApplyT(t *testing.T) {
	for _, spec := range []string{"sbm:sizes=700x700x700,pin=0.012,pout=0.0008,seed=4", "karate"} {
		g, _, err := laplacian.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		md, err := NewGraphModel(g, 1, GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if spec != "karate" && md.op == nil {
			t.Fatal("the test needs the operator model")
		}
		const count = 70
		rng := rand.New(rand.NewPCG(3, 4))
		zs := make([][]float64, count)
		order := []int{}
		md.ApplyTEach(count, func(d int, z []float64) {
			order = append(order, d)
			for i := range z {
				z[i] = rng.NormFloat64()
			}
			zs[d] = append([]float64(nil), z...)
		}, func(d int, c []float64) {
			want := make([]float64, md.N())
			md.ApplyT(want, zs[d])
			for i := range c {
				if diff := math.Abs(c[i] - want[i]); diff > 1e-12 {
					t.Fatalf("%s: vector %d, entry %d differs by %g", spec, d, i, diff)
				}
			}
		})
		for d, o := range order {
			if o != d {
				t.Fatalf("%s: filled out of order: %v", spec, order)
			}
		}
		if len(order) != count {
			t.Fatalf("%s: %d vectors filled, want %d", spec, len(order), count)
		}
	}
}

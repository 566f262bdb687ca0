package forecast

import (
	"math"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestPoolMissingSensors: with a fraction of the sensors missing, each
// block of a pool leaves out MissingCount sensors of its own (drawn again
// the same from the same seed, another set in the next block), a trial's
// readings are the reporting sensors' — the diffusion of its sources
// there, computed apart by the action, plus its noise — and its
// correlations are the restricted model's M_Sᵀ·ỹ_S (the pool computes
// them by the full action on the readings with the missing ones zeroed);
// with Reported, every block's sensors are those.
func TestPoolMissingSensors(t *testing.T) {
	g, _, err := laplacian.Generate("sbm:sizes=700x700x700,pin=0.012,pout=0.0008,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	act, err := expm.NewAction(g, 1, expm.Options{Method: expm.Sparse})
	if err != nil {
		t.Fatal(err)
	}
	reported := make([]int, 0, n)
	for i := range n {
		if i%3 != 0 {
			reported = append(reported, i)
		}
	}
	for _, c := range []struct {
		missing  float64
		reported []int
	}{{0.1, nil}, {0.5, nil}, {0, reported}} {
		e := Simulation{Graph: g, Tau: 1, Trials: 64, Seed: 3, Missing: c.missing, Reported: c.reported}
		pool, err := NewTrialPool(e)
		if err != nil {
			t.Fatal(err)
		}
		rows := [2][]int{pool.block(0).rows, pool.block(1).rows}
		want := n - MissingCount(n, c.missing)
		if c.reported != nil {
			want = len(c.reported)
			if !slices.Equal(rows[0], c.reported) || !slices.Equal(rows[1], c.reported) {
				t.Errorf("reported: blocks' rows are not the reported ones")
			}
		} else if slices.Equal(rows[0], rows[1]) {
			t.Errorf("missing %v: blocks 0 and 1 leave out the same sensors", c.missing)
		}
		again, _ := NewTrialPool(e)
		if !slices.Equal(again.block(1).rows, rows[1]) {
			t.Errorf("missing %v: the same seed drew other missing sensors", c.missing)
		}
		for _, tr := range []int{0, 33} {
			const m, sigma = 2.0, 0.01
			td := pool.trial(tr, m, sigma, true)
			r := rows[tr/trialBlock]
			if len(r) != want || len(td.y) != want || td.model == nil || td.model.M() != want || td.c0 == nil {
				t.Fatalf("missing %v trial %d: %d rows, %d readings, model %v, c0 %v", c.missing, tr, len(r), len(td.y), td.model != nil, td.c0 != nil)
			}
			a := make([]float64, n)
			act.Apply(a, td.f0, 1)
			z := pool.block(tr / trialBlock).z[tr%trialBlock]
			for k, i := range r {
				if d := math.Abs(td.y[k] - (a[i] + sigma*z[i])); d > 1e-9 {
					t.Fatalf("missing %v trial %d: reading of sensor %d off by %v", c.missing, tr, i, d)
				}
			}
			c0 := make([]float64, n)
			td.model.ApplyT(c0, td.y)
			for s := range n {
				if d := math.Abs(td.c0[s] - c0[s]); d > 1e-9 {
					t.Fatalf("missing %v trial %d: correlation %d is %v, M_Sᵀỹ_S %v", c.missing, tr, s, td.c0[s], c0[s])
				}
			}
		}
	}
}

package forecast

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestPoolTrialIsTheBlockTrial: a pool's trial at mass m and noise σ is
// the trial drawn with its block at that m and σ (same stream, same
// sources, readings and correlations within the actions' error: the pool
// scales the diffusion of the unit sources, the block diffuses m·1_S),
// at every mass and σ of the same pool — the draws are shared, not
// re-drawn — and whether the pool keeps its blocks or draws them again
// (budget 0).
func TestPoolTrialIsTheBlockTrial(t *testing.T) {
	g, _, err := laplacian.Generate("sbm:sizes=700x700x700,pin=0.012,pout=0.0008,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	for _, sources := range []int{1, 2} {
		base := Simulation{Graph: g, Tau: 1, Trials: 40, Seed: 9, Sources: sources}
		pool, err := NewTrialPool(base)
		if err != nil {
			t.Fatal(err)
		}
		lean, err := NewTrialPool(base)
		if err != nil {
			t.Fatal(err)
		}
		lean.budget = 0
		for _, at := range []struct{ m, sigma float64 }{{1, 0.002}, {3, 0.002}, {0.1, 0.05}} {
			e := base
			e.SourceMass = at.m
			act, model, err := e.trialModels()
			if err != nil {
				t.Fatal(err)
			}
			d := newBlockDraws(&e, act, model, at.sigma, recovery.Posterior{})
			for trial := range e.Trials {
				want := d.draw(trial)
				for _, p := range []*TrialPool{pool, lean} {
					got := p.trial(trial, at.m, at.sigma, true)
					if !slices.Equal(got.src, want.src) || !slices.Equal(got.f0, want.f0) {
						t.Fatalf("sources %d, m %g, trial %d: sources %v from the pool, %v from the block", sources, at.m, trial, got.src, want.src)
					}
					if d := maxAbsDiff(got.y, want.y); d > 1e-9*at.m {
						t.Fatalf("sources %d, m %g, trial %d: readings differ by %g", sources, at.m, trial, d)
					}
					if got.c0 == nil || want.c0 == nil {
						t.Fatal("no correlations: the test needs the sparse model")
					}
					if d := maxAbsDiff(got.c0, want.c0); d > 1e-9*at.m {
						t.Fatalf("sources %d, m %g, trial %d: correlations differ by %g", sources, at.m, trial, d)
					}
				}
			}
		}
		if len(lean.blocks) != 0 || len(pool.blocks) != (base.Trials+trialBlock-1)/trialBlock {
			t.Fatalf("pool keeps %d blocks (want %d), the lean one %d (want 0)", len(pool.blocks), (base.Trials+trialBlock-1)/trialBlock, len(lean.blocks))
		}
	}
}

// TestMassCurvesShareTheirTrials: the curves of several noise levels are
// each the curve computed alone (MassCurve at that σ with the same seed:
// the levels share each mass's draws, they do not change them), and on
// shared draws a smaller σ is no worse at any mass beyond a few trials'
// worth; a pool drawn at another τ is refused.
func TestMassCurvesShareTheirTrials(t *testing.T) {
	g, planted, err := laplacian.Generate("sbm:sizes=60x60x60,pin=0.2,pout=0.01,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	base := Simulation{Graph: g, Partition: planted, Tau: 1, Epsilon: 1, Delta: 1e-6, Trials: 40, Seed: 5}
	var es []Simulation
	for _, sigma := range []float64{0.05, 0.01} {
		e := base
		e.Sigma = sigma
		es = append(es, e)
	}
	together, err := MassCurves(context.Background(), es, base.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for j, e := range es {
		alone, r, err := MassCurve(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone, together[j].Points) || r != together[j].Resolvable {
			t.Fatalf("σ = %g: the curve computed with another level is %v (%g), alone %v (%g)", e.Sigma, together[j].Points, together[j].Resolvable, alone, r)
		}
		unit, err := PerNode(context.Background(), func() Simulation { u := e; u.Seed = base.Seed; return u }())
		if err != nil {
			t.Fatal(err)
		}
		if unit.CommunityAccuracy != together[j].Unit.CommunityAccuracy || unit.Trials != together[j].Unit.Trials {
			t.Fatalf("σ = %g: the curve's unit point %g (%d trials) is not the unit forecast %g (%d)", e.Sigma,
				together[j].Unit.CommunityAccuracy, together[j].Unit.Trials, unit.CommunityAccuracy, unit.Trials)
		}
	}
	for i := range together[0].Points {
		loud, quiet := together[0].Points[i], together[1].Points[i]
		if quiet.CommunityAccuracy < loud.CommunityAccuracy-0.1 {
			t.Fatalf("at %g units σ = 0.01 is right %g of the time, σ = 0.05 %g, on the same draws", loud.Mass, quiet.CommunityAccuracy, loud.CommunityAccuracy)
		}
	}
	pool, err := NewTrialPool(base)
	if err != nil {
		t.Fatal(err)
	}
	other := base
	other.Tau, other.Sigma, other.Pool = 2, 0.01, pool
	if _, err := PerNode(context.Background(), other); err == nil {
		t.Fatal("a pool drawn at τ = 1 served a simulation at τ = 2")
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

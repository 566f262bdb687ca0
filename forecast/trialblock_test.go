package forecast

import (
	"math"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/internal/trials"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestBlockDrawsMatchLoneTrials: a trial drawn with its block of 32 — the
// action on 32 columns at once, the posterior from the block's
// correlations — is the trial drawn alone (its own stream: sources, the
// action on one column, its noise; recovery.Posterior.Estimate): the same
// sources, readings equal to the action's error, the same locations and
// posterior weights, for the trials of a full block and of a short one,
// with one source and with two.
func TestBlockDrawsMatchLoneTrials(t *testing.T) {
	g, _, err := laplacian.Generate("sbm:sizes=700x700x700,pin=0.012,pout=0.0008,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	for _, sources := range []int{1, 2} {
		e := Simulation{Graph: g, Tau: 1, Trials: 40, Seed: 9, Sources: sources, SourceMass: 3}
		act, model, err := e.trialModels()
		if err != nil {
			t.Fatal(err)
		}
		if !model.ApplyBlock(make([]float64, n), make([]float64, n), 1) {
			t.Fatal("the model is not the sparse action: the test needs a larger graph")
		}
		const sigma = 0.002
		post := recovery.Posterior{}
		d := newBlockDraws(&e, act, model, sigma, post)
		for trial := range e.Trials {
			td := d.draw(trial)
			rng := trials.RNG(e.Seed, trial)
			src := rng.Perm(n)[:sources]
			if !slices.Equal(src, td.src) {
				t.Fatalf("sources %d, trial %d: %v drawn with the block, %v alone", sources, trial, td.src, src)
			}
			f0 := make([]float64, n)
			for _, s := range src {
				f0[s] = e.SourceMass
			}
			y := make([]float64, n)
			act.Apply(y, f0, 1)
			for i := range y {
				y[i] += sigma * rng.NormFloat64()
				if d := math.Abs(y[i] - td.y[i]); d > 1e-9 {
					t.Fatalf("trial %d: reading %d differs by %g", trial, i, d)
				}
			}
			p := model.Problem(y, sigma)
			p.Sources = sources
			alone, err := post.Estimate(p)
			if err != nil {
				t.Fatal(err)
			}
			pb := model.Problem(td.y, sigma)
			pb.Sources = sources
			block, err := post.FromCorrelations(pb, td.c0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(alone.Locations, block.Locations) {
				t.Fatalf("sources %d, trial %d: located at %v with the block, %v alone", sources, trial, block.Locations, alone.Locations)
			}
			for i, w := range alone.Posterior {
				if d := math.Abs(w - block.Posterior[i]); d > 1e-6 {
					t.Fatalf("trial %d: posterior of node %d differs by %g", trial, i, d)
				}
			}
			if !math.IsNaN(block.Residual) {
				t.Fatalf("FromCorrelations reports a residual %g it did not compute", block.Residual)
			}
		}
	}
}

package cost

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// priorDelta2Budget bounds the Δ2 a plan's first line foresees its
// per-node curves at when the store holds none (priorDelta2): the
// anytime bound sensitivity returns when its time budget runs out
// (e-mail Enron at τ = 1: 0.429 after a second, 1.17× the exact 0.368).
const priorDelta2Budget = time.Second

// curvesTiming bounds the foresight of the per-node curves (the pool's
// models, a block of trials drawn and scored at every mass and ε: about
// 5 s of two free cores on polblogs, 41 s of wall at load 16): past it
// they are priced at every mass (poolStep).
const curvesTiming = 90 * time.Second

// priorDelta2 is Δ2 at τ and α on g within priorDelta2Budget: exact, or
// a proven upper bound (σ at it is at least the release's, so the curves
// foreseen at it err towards more work); 0 where it fails.
func priorDelta2(g *laplacian.Graph, tau, alpha float64) float64 {
	if !(alpha > 0) {
		alpha = 1
	}
	s, err := sensitivity.Graph(g, tau, alpha, sensitivity.Options{TimeBudget: priorDelta2Budget})
	if err != nil {
		return 0
	}
	return s.Delta2
}

// curveWork is the per-node curves' work foreseen at Levels ε
// (forecast.ForeseeMassCurves) and how their σ was had.
type curveWork struct {
	Work   forecast.MassCurveWork
	Levels int
	How    string
}

// curveStep prices a plan's per-node forecasts as foreseen: for each of
// taus diffusion times (the smoothed releases' curves taken to run as
// the one at τ) the foreseen rounds of trials trials drawn on one pool
// (once for every mass and ε) and scored at each mass and ε, and the
// trials scored after the grid (at mass 0 for the paired test, refinement
// masses, locate's step), at what the foresight's pilot took
// (forecast.MassCurveWork.Seconds).
func curveStep(taus, trials int, cw curveWork) Step {
	p := cw.Work.Pilot
	return Step{Step: "per-node forecasts", Seconds: float64(taus) * cw.Work.Seconds(trials, p),
		Model: fmt.Sprintf("%d of %d masses on one pool of %d rounds × %d trials drawn once at %.3g s, %d rounds scored over %d ε at %.3g s, then %d trials scored at mass 0 for the paired test, at the verdict curves' refinement masses and in locate's step (%d more drawn), the models %.3g s and the verdicts' nulls %.3g s (foreseen at σ from %s, timed on a block of %d trials of this graph)",
			cw.Work.Masses(), len(forecast.MassGrid()), cw.Work.Drawn(), trials, p.Draw, cw.Work.Scored(), cw.Levels, p.Score,
			cw.Work.ScoredBeyond(), cw.Work.BeyondDrawn, p.Setup, p.Fixed, cw.How, forecast.TrialBlock)}
}

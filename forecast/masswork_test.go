package forecast

import (
	"context"
	"github.com/graphcloak/graphcloak/community"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestForeseeMassCurvesAgainstTheCurves checks the foresight of a plan's
// mass curves against the work the curves then do (the oracle: the rounds
// MassCurves simulated at each point): at noise levels whose curves stop
// after two sure masses, and one that runs the whole grid, the rounds
// drawn within 1.5× and the masses simulated within one.
func TestForeseeMassCurvesAgainstTheCurves(t *testing.T) {
	g, planted, err := laplacian.Generate("sbm:sizes=60x60x60,pin=0.2,pout=0.01,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	for _, sigmas := range [][]float64{{0.002}, {0.02}, {0.3}, {0.002, 0.02}} {
		base := Simulation{Graph: g, Partition: planted, Tau: 1, Epsilon: 1, Delta: 1e-6, Trials: 100, Seed: 7}
		var es []Simulation
		for _, s := range sigmas {
			e := base
			e.Sigma = s
			es = append(es, e)
		}
		curves, err := MassCurves(context.Background(), es, base.Seed)
		if err != nil {
			t.Fatal(err)
		}
		var did MassCurveWork
		for i := range MassGrid() {
			row := make([]int, len(es))
			for j := range es {
				row[j] = curves[j].rounds[i]
			}
			did.Rounds = append(did.Rounds, row)
		}
		w, err := ForeseeMassCurves(context.Background(), es, base.Seed)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(w.Drawn()) / float64(did.Drawn())
		t.Logf("σ %v: foreseen %v (%d masses, %d rounds drawn), did %v (%d, %d)", sigmas, w.Rounds, w.Masses(), w.Drawn(), did.Rounds, did.Masses(), did.Drawn())
		if ratio > 1.5 || ratio < 1/1.5 {
			t.Errorf("σ %v: foreseen %d rounds drawn, the curves drew %d (%.2f×)", sigmas, w.Drawn(), did.Drawn(), ratio)
		}
		if d := w.Masses() - did.Masses(); d > 1 || d < -1 {
			t.Errorf("σ %v: foreseen %d masses simulated, the curves simulated %d", sigmas, w.Masses(), did.Masses())
		}
	}
}

// TestVerdictRoundsAt checks the rounds PerNode's tests take on an
// expected count against the tests written out: a rate far above the
// guess is answered in the first round, one at the guess is noise after
// at most VerdictRounds, one just above it takes more than one.
func TestVerdictRoundsAt(t *testing.T) {
	if r, ok := VerdictRoundsAt(0.9, 0.05, 100); r != 1 || !ok {
		t.Errorf("rate 0.9 against 0.05: %d rounds, answer %v; want 1, true", r, ok)
	}
	if r, ok := VerdictRoundsAt(0.01, 0.05, 100); r != 1 || ok {
		t.Errorf("rate 0.01 against 0.05: %d rounds, answer %v; want 1, false", r, ok)
	}
	// Rate 0.09 against 0.05 with 100 trials: round 1's Wilson bounds at
	// z = 2.24 are [0.043, 0.19] — neither test decides; four rounds
	// (400 trials) give [0.065, 0.125]: an answer by round 4 at the latest.
	r, ok := VerdictRoundsAt(0.09, 0.05, 100)
	if lo, hi := Wilson(9, 100, zVerdict); lo > 0.05 || hi < 0.1 {
		t.Fatalf("the oracle's premise: round 1 is [%g, %g]", lo, hi)
	}
	if r < 2 || !ok {
		t.Errorf("rate 0.09 against 0.05: %d rounds, answer %v; want ≥ 2, true", r, ok)
	}
}

// TestForeseeMassCurvesCountsTheWorkAfterTheGrid: a plan's curves score
// trials after the grid — the verdict curve's refinement masses and
// locate's step's forecast runs, as many as the grid's on karate — and
// the foresight prices them: with scoring alone priced (a second a
// trial), the foreseen seconds are within 1.5× of the trials the curves
// scored (the oracle: their grid rounds, refinement masses and step
// runs, counted as they ran). Before, the foresight counted the grid's
// alone: half the work.
func TestForeseeMassCurvesCountsTheWorkAfterTheGrid(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const trials = 200
	for _, sigma := range []float64{0.1, 0.25, 0.5} {
		e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: sigma, Trials: trials, VerdictRoundTrials: 100, Seed: 5, Verdicts: true}
		rs, err := MassCurves(context.Background(), []Simulation{e}, e.Seed)
		if err != nil {
			t.Fatal(err)
		}
		r := rs[0]
		grid := 0
		for _, k := range r.rounds {
			grid += k * trials
		}
		refined := (len(r.VerdictCurve()) - len(r.Points)) * trials
		did := grid + r.beyond
		if r.beyond < refined || refined == 0 {
			t.Fatalf("σ %g: %d trials scored after the grid, %d of them at refinement masses: the case checks nothing", sigma, r.beyond, refined)
		}
		w, err := ForeseeMassCurves(context.Background(), []Simulation{e}, e.Seed)
		if err != nil {
			t.Fatal(err)
		}
		foreseen := w.Seconds(trials, PilotCost{Score: 1})
		t.Logf("σ %g: scored %d trials (grid %d, refinements %d, step %d), foreseen %.0f", sigma, did, grid, refined, r.beyond-refined, foreseen)
		if ratio := foreseen / float64(did); ratio > 1.5 || ratio < 1/1.5 {
			t.Errorf("σ %g: foreseen %.0f trials scored, the curves scored %d (%.2f×)", sigma, foreseen, did, ratio)
		}
	}
}

// TestMassCurvesDrawOnePool (issue 79, item 1): a plan's curves score
// every mass, ε, refinement mass and locate's step on one pool of trials
// (trials are linear in the mass) — where each mass of the grid drew its
// own before (nine for a curve that simulates the whole grid) — and the
// foresight prices the trials drawn: within 1.5× of those the pool drew
// (the oracle: its blocks, counted as they were drawn).
func TestMassCurvesDrawOnePool(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const trials = 200
	var es []Simulation
	for _, sigma := range []float64{0.25, 0.5} {
		es = append(es, Simulation{Graph: g, Partition: part, Tau: 1, Sigma: sigma, Trials: trials, VerdictRoundTrials: 100, Seed: 5, Verdicts: true})
	}
	rs, err := MassCurves(context.Background(), es, es[0].Seed)
	if err != nil {
		t.Fatal(err)
	}
	simulated := 0
	for _, k := range rs[1].rounds {
		if k > 0 {
			simulated++
		}
	}
	if simulated < 6 || !(rs[1].Resolvable > 0) {
		t.Fatalf("σ 0.5: %d masses simulated, resolvable %g: the case checks nothing", simulated, rs[1].Resolvable)
	}
	for j, r := range rs {
		if r.poolsDrawn != 1 {
			t.Errorf("σ %g: %d pools of trials drawn; want one for every mass and ε", es[j].Sigma, r.poolsDrawn)
		}
	}
	w, err := ForeseeMassCurves(context.Background(), es, es[0].Seed)
	if err != nil {
		t.Fatal(err)
	}
	foreseen := w.Drawn()*trials + w.BeyondDrawn
	t.Logf("%d masses simulated at σ 0.5, %d pool, %d trials drawn; foreseen %d (grid %d rounds, %d more)",
		simulated, rs[0].poolsDrawn, rs[0].trialsDrawn, foreseen, w.Drawn(), w.BeyondDrawn)
	if ratio := float64(foreseen) / float64(rs[0].trialsDrawn); ratio > 1.5 || ratio < 1/1.5 {
		t.Errorf("foreseen %d trials drawn, the pool drew %d (%.2f×)", foreseen, rs[0].trialsDrawn, ratio)
	}
}

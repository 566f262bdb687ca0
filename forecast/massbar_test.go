package forecast

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestMassBarCountsPoolDraws: plan's bar "forecasts by source mass"
// counts the pool's draws at their price (defaultBarWeights.draw trials scored a
// trial drawn), not as nothing. The pool's first block is drawn before any
// trial is scored: once it is, the bar stands at least at half that
// block's share of the run's priced work — on c2bfb18 it showed 1 of
// every trial to score ("400/22200 (1%), ETA 27m15s" for a step of 33 s,
// issue 79) — and its total holds every trial drawn and scored, priced.
func TestMassBarCountsPoolDraws(t *testing.T) {
	g, part := karateLeiden(t)
	const trials = 64
	var reports [][2]int
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.25, Trials: trials, VerdictRoundTrials: trials, Seed: 5,
		Verdicts: true, Workers: 1, Progress: func(done, total int) { reports = append(reports, [2]int{done, total}) }}
	rs, err := MassCurves(context.Background(), []Simulation{e}, e.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	scored := r.beyond
	for _, k := range r.rounds {
		scored += k * trials
	}
	nulls := defaultBarWeights.null * (recovery.DefaultEvidenceDraws + MassNullDraws) // the verdict's (TestMassBarCountsNullDraws)
	priced := defaultBarWeights.draw*r.trialsDrawn + scored + nulls
	if r.trialsDrawn == 0 || scored == 0 {
		t.Fatalf("%d trials drawn, %d scored: the test needs both", r.trialsDrawn, scored)
	}
	first := -1
	for i, rep := range reports {
		if rep[0] > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatalf("the bar never moved: %v", reports)
	}
	got := float64(reports[first][0]) / float64(reports[first][1])
	share := float64(defaultBarWeights.draw*trialBlock) / float64(priced)
	if got < share/2 {
		t.Errorf("after the pool's first block the bar showed %d/%d (%.3f); the block is %.3f of the priced work (%d trials drawn, %d scored)",
			reports[first][0], reports[first][1], got, share, r.trialsDrawn, scored)
	}
	if last := reports[len(reports)-1]; last[1] < priced || last[0] != last[1] {
		t.Errorf("the bar ended at %d/%d; the run's priced work is %d (%d trials drawn at %d each, %d scored, nulls %d)",
			last[0], last[1], priced, r.trialsDrawn, defaultBarWeights.draw, scored, nulls)
	}
}

// TestMassBarCountsNullDraws: the verdicts' null draws — the evidence
// test's at each σ and the mass bound's once, a column action each — are
// on plan's bar "forecasts by source mass", at the weight the step's cost
// model gives them (EpsilonSweep.BarCost): the bar moves by one null's
// weight at each draw (on 53be8a0 it sat still through them, 4–6 s on LFR
// 2·10⁴, issue 79), never goes back, stays below its total until the run
// ends and ends at it, its total holding every trial scored, drawn and
// null drawn at its weight (and the work foreseen and skipped).
func TestMassBarCountsNullDraws(t *testing.T) {
	g, part := karateLeiden(t)
	const trials = 40
	price := PilotCost{Draw: 7e-3, Score: 1e-3, Null: 3e-3} // weights 7 and 3: apart from a trial scored's 1
	w := price.weights()
	if w != (barWeights{draw: 7, null: 3}) {
		t.Fatalf("weights %+v of %+v", w, price)
	}
	var reports [][2]int
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.25, Trials: trials, VerdictRoundTrials: trials, Seed: 5,
		Verdicts: true, Workers: 1, barCost: price, Progress: func(done, total int) { reports = append(reports, [2]int{done, total}) }}
	f := e
	f.Sigma, f.Progress = 0.5, nil
	rs, err := MassCurves(context.Background(), []Simulation{e, f}, e.Seed)
	if err != nil {
		t.Fatal(err)
	}
	nulls := len(rs)*recovery.DefaultEvidenceDraws + MassNullDraws
	priced := w.draw*rs[0].trialsDrawn + w.null*nulls
	for _, r := range rs {
		priced += r.beyond
		for _, k := range r.rounds {
			priced += k * trials
		}
	}
	steps := 0 // reports one null draw on from the last
	for i, r := range reports {
		if r[0] > r[1] || (r[0] == r[1]) != (i == len(reports)-1) {
			t.Fatalf("report %d of %d: %d/%d (at the total only at the end)", i+1, len(reports), r[0], r[1])
		}
		if i > 0 && r[0] < reports[i-1][0] {
			t.Fatalf("the bar went back: %v after %v", r, reports[i-1])
		}
		if i > 0 && r[0]-reports[i-1][0] == w.null {
			steps++
		}
	}
	if last := reports[len(reports)-1]; last[1] < priced {
		t.Errorf("the bar ended at %d/%d; the run's priced work is %d (%d trials drawn at %d, %d null draws at %d, the rest scored)",
			last[0], last[1], priced, rs[0].trialsDrawn, w.draw, nulls, w.null)
	}
	if steps < nulls {
		t.Errorf("the bar moved by a null draw's weight %d times, for %d null draws", steps, nulls)
	}
}

// karateLeiden is the karate club and its Leiden communities (seed 1).
func karateLeiden(t *testing.T) (*laplacian.Graph, []int) {
	t.Helper()
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g, part
}

package forecast

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestMassBarCountsPoolDraws: plan's bar "forecasts by source mass"
// counts the pool's draws at their price (drawScorings trials scored a
// trial drawn), not as nothing. The pool's first block is drawn before any
// trial is scored: once it is, the bar stands at least at half that
// block's share of the run's priced work — on c2bfb18 it showed 1 of
// every trial to score ("400/22200 (1%), ETA 27m15s" for a step of 33 s,
// issue 79) — and its total holds every trial drawn and scored, priced.
func TestMassBarCountsPoolDraws(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
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
	priced := drawScorings*r.trialsDrawn + scored
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
	share := float64(drawScorings*trialBlock) / float64(priced)
	if got < share/2 {
		t.Errorf("after the pool's first block the bar showed %d/%d (%.3f); the block is %.3f of the priced work (%d trials drawn, %d scored)",
			reports[first][0], reports[first][1], got, share, r.trialsDrawn, scored)
	}
	if last := reports[len(reports)-1]; last[1] < priced || last[0] != last[1] {
		t.Errorf("the bar ended at %d/%d; the run's priced work is %d (%d trials drawn at %d each, %d scored)",
			last[0], last[1], priced, r.trialsDrawn, drawScorings, scored)
	}
}

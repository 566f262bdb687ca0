package forecast

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestMassCurveBarCountsRefinement: the verdict curve's refinement masses
// (Trials trials each, after the grid's points) are on the bar. The bar
// moves while each of them runs — it does not sit at its last step while
// they are drawn — and its total holds every trial the run simulated:
// the grid's points, the refinements and locate's step's runs.
func TestMassCurveBarCountsRefinement(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const trials = 100
	var mu sync.Mutex
	var dones []int
	total := 0
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.25, Trials: trials, VerdictRoundTrials: trials, Seed: 5,
		Verdicts: true, Workers: 1, Progress: func(done, tot int) {
			mu.Lock()
			defer mu.Unlock()
			dones, total = append(dones, done), tot
		}}
	rs, err := MassCurves(context.Background(), []Simulation{e}, e.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	simulated := 0
	for _, k := range r.rounds {
		simulated += k * trials
	}
	refined := len(r.VerdictCurve()) - len(r.Points)
	if refined == 0 {
		t.Fatal("no refinement mass: the test needs a curve whose answers turn between grid points")
	}
	simulated += refined * trials
	if total < simulated {
		t.Errorf("the bar's total is %d trials, the run simulated %d (%d of them at %d refinement masses)",
			total, simulated, refined*trials, refined)
	}
	// And locate's step's forecast runs after them (counted as they ran).
	if step := r.beyond - refined*trials; step <= 0 || total < simulated+step {
		t.Errorf("the bar's total is %d trials, the run simulated %d and %d more in locate's step's runs", total, simulated, step)
	}
	// Distinct positions past the grid's work: one at least per refinement.
	grid := len(MassGrid()) * trials
	past := map[int]bool{}
	for _, d := range dones {
		if d >= grid && d < total {
			past[d] = true
		}
	}
	if len(past) < refined {
		t.Errorf("%d positions of the bar after the grid's %d trials, for %d refinement masses", len(past), grid, refined)
	}
}

// TestMassCurvesBarNeverGoesBack: plan's bar "forecasts by source mass"
// only goes forward, over two curves (their refinements and steps run
// curve by curve) and points of several rounds (each round's trials
// report from 1), never past its total, and ends at it. On 200f29b it
// went back ("96/4400 → 24/4400", issue 79).
func TestMassCurvesBarNeverGoesBack(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports [][2]int
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.25, Trials: 10, VerdictRoundTrials: 10, Seed: 5,
		Verdicts: true, Workers: 2, Progress: func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			reports = append(reports, [2]int{done, total})
		}}
	f := e
	f.Sigma, f.Progress = 0.5, nil
	rs, err := MassCurves(context.Background(), []Simulation{e, f}, e.Seed)
	if err != nil {
		t.Fatal(err)
	}
	rounds := 0
	for _, r := range rs {
		rounds = max(rounds, slices.Max(r.rounds))
	}
	if rounds < 2 {
		t.Fatalf("no point took two rounds: the test needs one (%v, %v)", rs[0].rounds, rs[1].rounds)
	}
	if len(reports) == 0 {
		t.Fatal("no progress reported")
	}
	for i, r := range reports {
		if r[0] > r[1] {
			t.Fatalf("report %d: %d of %d", i, r[0], r[1])
		}
		if i > 0 && r[0] < reports[i-1][0] {
			t.Fatalf("the bar went back: report %d is %d/%d after %d/%d", i, r[0], r[1], reports[i-1][0], reports[i-1][1])
		}
	}
	if last := reports[len(reports)-1]; last[0] != last[1] {
		t.Errorf("the bar ended at %d/%d", last[0], last[1])
	}
}

package sensitivity

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// progressRecord records a step's progress reports, and whether any came
// after the call that made them had returned.
type progressRecord struct {
	mu       sync.Mutex
	reports  [][2]int
	returned bool
	late     int
}

func (r *progressRecord) report(done, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.returned {
		r.late++
	}
	r.reports = append(r.reports, [2]int{done, total})
}

func (r *progressRecord) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.returned = true
}

// TestDelta2ProgressEnds: once Δ2 is known its progress is done — the
// last report has done = total — even when the sparse columns scheme
// prunes the column blocks left (issue 79: serve's log said
// "Δ2: 14/97 (14%)" with a growing ETA for a Δ2 finished in 0.5 s), and
// no report comes after Graph returns.
func TestDelta2ProgressEnds(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=600,m=2,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	pruned := false
	for _, tau := range []float64{0.3, 1, 3} {
		var rec progressRecord
		s, err := GraphContext(context.Background(), g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeColumns, Progress: rec.report})
		rec.finish()
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.reports) == 0 {
			continue
		}
		// The reports before the end: one left short of its total is an
		// early end (pruned, or Δ2 proven before the blocks ran out).
		if n := len(rec.reports); n > 1 && rec.reports[n-2][0] < rec.reports[n-2][1]-1 {
			pruned = true
		}
		if last := rec.reports[len(rec.reports)-1]; last[1] <= 0 || last[0] != last[1] {
			t.Errorf("τ = %g (%s): last progress %d/%d of %d reports: the step is left open", tau, s.Method, last[0], last[1], len(rec.reports))
		}
		if rec.late > 0 {
			t.Errorf("τ = %g: %d reports after Graph returned", tau, rec.late)
		}
	}
	if !pruned {
		t.Error("no τ pruned a column block: the test does not reach the early end")
	}
}

// TestDelta2ProgressCountsWork: the Lanczos scheme's progress counts its
// work, not the edges proven. Its first report comes after the cheap
// bounds and before any class is run through Lanczos; when the cheap
// bounds leave a class to refine (checked here from the bounds
// themselves: its U_e above the best lower bound), all of the exact step
// — the larger share of the work — remains, and the fraction reported
// must be below 0.99 (issue 79: "Δ2: …/121251 (99%)" on astro-ph 2 s
// into 8, the cheap bounds having proven 99 % of the edges). Every
// report's done ≤ total, and the last is done.
func TestDelta2ProgressCountsWork(t *testing.T) {
	// A light pendant edge on a low-degree node: its Jensen lower bound
	// proves every other edge below it at once (1794 of 1795 edges).
	g := withPendant(t, "pa:n=600,m=3,seed=3", 599, 0.1)
	const tau = 0.3
	cl := edgeClassesKnown(g, tau, nil, cutoff{})
	floor := 0.0
	for _, c := range cl {
		floor = math.Max(floor, c.lo)
	}
	toRefine := 0
	for _, c := range cl {
		if c.u > floor {
			toRefine++
		}
	}
	if toRefine == 0 {
		t.Fatal("the cheap bounds settle every class: the test does not reach the exact step")
	}
	var rec progressRecord
	if _, err := GraphContext(context.Background(), g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeLanczos, Progress: rec.report}); err != nil {
		t.Fatal(err)
	}
	if len(rec.reports) == 0 {
		t.Fatal("no progress reported")
	}
	if first := rec.reports[0]; first[1] <= 0 || float64(first[0]) >= 0.99*float64(first[1]) {
		t.Errorf("first report %d/%d (after the cheap bounds, %d classes still to refine): at 99 %% with the exact step ahead", first[0], first[1], toRefine)
	}
	for _, r := range rec.reports {
		if r[0] > r[1] {
			t.Errorf("report %d/%d: done above total", r[0], r[1])
		}
	}
	if last := rec.reports[len(rec.reports)-1]; last[0] != last[1] {
		t.Errorf("last report %d/%d: the step is left open", last[0], last[1])
	}
}

// withPendant is the graph spec with a new node joined to node at by an
// edge of weight w.
func withPendant(t *testing.T, spec string, at int, w float64) *laplacian.Graph {
	t.Helper()
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	var edges []laplacian.Edge
	g.ForEachEdge(func(i, j int, wij float64) {
		edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: wij})
	})
	edges = append(edges, laplacian.Edge{U: int32(at), V: int32(g.N()), Weight: w})
	h, err := laplacian.FromEdges(g.N()+1, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDelta2ProgressCountsOnlySurvivingClasses: the Lanczos scheme's first
// progress report, made once the cheap bounds are known and before any
// class runs, counts no work the run will not do. Its total is at most
// the last report's, which is the work done (every unit, done = total);
// counting every class above the cheap bounds' floor, most of which the
// seeds' lower bound prunes before they run, said 1/32778 on astro-ph
// where 985 classes were refined (issue 79: a first ETA 30× too long).
// On this graph the cheap bounds leave about 1680 classes above their
// floor and about 310 are refined. Later totals count the classes above
// the best lower bound of their moment (a class that bound prunes leaves
// the total), and done never falls.
func TestDelta2ProgressCountsOnlySurvivingClasses(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=600,m=3,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	const tau = 0.3
	cl := edgeClassesKnown(g, tau, nil, cutoff{})
	floor, above := 0.0, 0
	for _, c := range cl {
		floor = math.Max(floor, c.lo)
	}
	for _, c := range cl {
		if c.u > floor {
			above++
		}
	}
	var rec progressRecord
	if _, err := GraphContext(context.Background(), g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeLanczos, Progress: rec.report}); err != nil {
		t.Fatal(err)
	}
	if len(rec.reports) < 2 {
		t.Fatalf("%d progress reports", len(rec.reports))
	}
	first, last := rec.reports[0], rec.reports[len(rec.reports)-1]
	if last[0] != last[1] || 2*last[1] > above {
		t.Fatalf("last report %d/%d with %d classes above the cheap bounds: the graph does not reach the case", last[0], last[1], above)
	}
	if first[1] > last[1] {
		t.Errorf("first report %d/%d, a total above the %d units done in all (%d classes above the cheap bounds)", first[0], first[1], last[1], above)
	}
	for i, r := range rec.reports[1:] {
		if r[0] < rec.reports[i][0] {
			t.Errorf("report %d: done %d after %d", i+1, r[0], rec.reports[i][0])
		}
	}
}

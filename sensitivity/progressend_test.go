package sensitivity

import (
	"context"
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

package sensitivity

import (
	"errors"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestLineReport: the report of Line with n, m and T set, the maximising
// pair as 1-based grid indices j, j+1 (adjacent grid points), and Line's
// own refusals passed on.
func TestLineReport(t *testing.T) {
	r, err := LineReport(20, 10, 0.05, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Line(20, 10, 0.05, 0.5)
	if r.Delta2 != s.Delta2 || !r.Exact || !r.Certified || *r.N != 20 || *r.M != 10 || *r.Tau != 0.05 || r.Alpha != 0.5 {
		t.Errorf("report %+v of %+v", r, s)
	}
	if len(r.Edge) != 2 || r.Edge[0] != s.Edge[0]+1 || r.Edge[1].(int) != r.Edge[0].(int)+1 {
		t.Errorf("maximising pair %v, Line's %v", r.Edge, s.Edge)
	}
	var pe *ParamError
	if _, err := LineReport(0, 10, 0.05, 1); !errors.As(err, &pe) {
		t.Errorf("n = 0: %v, want a ParamError", err)
	}
}

// TestNewPlanReport: the dry run names the method ChooseMethod picks, a
// modelled time and its model's memory (plus the caller's base), the graph's size, and
// echoes τ, α and the time budget.
func TestNewPlanReport(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=400,m=3,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{TimeBudget: 3 * time.Second}
	p := NewPlanReport(g, "pa", 1, 2, opt, 1000)
	ch := ChooseMethod(g, 1, opt)
	if !p.DryRun || p.Graph != "pa" || p.Nodes != 400 || p.Edges != g.NumEdges() || p.Components != 1 || p.Tau != 1 || p.Alpha != 2 {
		t.Errorf("plan %+v", p)
	}
	// The sparse model times the per-edge bounds on a sample: its seconds
	// vary from call to call, its method and memory do not.
	if p.Method != ch.Name() || !(p.SecondsEstimate > 0) || p.BytesEstimate != ch.Bytes+1000 || p.TimeBudgetSeconds != 3 {
		t.Errorf("plan %+v, choice %+v", p, ch)
	}
}

package forecast

import (
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestEstimateMassReportsItsNullDraws: the source mass's null draws (on
// LFR 10⁵ minutes of a loaded machine, without a line: issue 79) report
// their progress, one report a draw up to MassNullDraws of MassNullDraws,
// and the estimate is EstimateMass's (the same seeded draws).
func TestEstimateMassReportsItsNullDraws(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=400,m=2,seed=5")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{0, 1} { // the operator model, then the dense one
		model, err := recovery.NewGraphModel(g, 1, recovery.GraphOptions{DenseLimit: 1 + b*(g.N()-2)})
		if err != nil {
			t.Skip(err)
		}
		y := make([]float64, g.N())
		model.Apply(y, unitAt(g.N(), 7))
		var reports [][2]int
		got := EstimateMass(model, y, 0.05, 3, func(d, total int) { reports = append(reports, [2]int{d, total}) })
		if want := EstimateMass(model, y, 0.05, 3, nil); got != want {
			t.Errorf("model %d: with progress %+v, without %+v", b, got, want)
		}
		if len(reports) != MassNullDraws {
			t.Fatalf("model %d: %d reports, want one a draw (%d)", b, len(reports), MassNullDraws)
		}
		for i, r := range reports {
			if r != [2]int{i + 1, MassNullDraws} {
				t.Fatalf("model %d: report %d is %v", b, i, r)
			}
		}
	}
}

func unitAt(n, s int) []float64 {
	f := make([]float64, n)
	f[s] = 1
	return f
}

package forecast

import (
	"context"
	"reflect"
	"testing"
)

// TestSweepKeepsTheMassNullQuantile: a sweep keeps the mass bound's null
// quantile in its Memo, sealed as its rows are, and a sweep at another ε
// with that memo reads it instead of drawing it again — and its rows are
// those of the same sweep on an empty memo, to the bit (the quantile
// drawn again is the one kept: it does not depend on ε). On main a new ε
// drew its MassNullDraws again: the memo held no quantile.
func TestSweepKeepsTheMassNullQuantile(t *testing.T) {
	base := memoSimulation(t)
	g := base.Graph
	ctx := context.Background()
	perNode := []string{ModePerNode}
	memo := &mapMemo{m: map[string]Forecast{}}
	if _, err := SweepEpsilons(ctx, EpsilonSweep{Graph: base, Epsilons: []float64{1}, Modes: perNode, Memo: memo}); err != nil {
		t.Fatal(err)
	}
	fp := g.Fingerprint()
	key := EpsilonSweep{Graph: base}.memoKey(&fp, massNullRow, 0)
	kept, ok := memo.m[key]
	if !ok || !(kept.MassNullQuantile > 0) {
		t.Fatalf("the memo keeps no mass null quantile (%+v, %v)", kept, ok)
	}
	// A drawn quantile the sweep at ε = 4 cannot tell from its own: a
	// sweep that read it reports what this one does.
	memo.m[key] = Forecast{Mode: massNullRow, MassNullQuantile: kept.MassNullQuantile}
	again, err := SweepEpsilons(ctx, EpsilonSweep{Graph: base, Epsilons: []float64{4}, Modes: perNode, Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := SweepEpsilons(ctx, EpsilonSweep{Graph: base, Epsilons: []float64{4}, Modes: perNode, Memo: &mapMemo{m: map[string]Forecast{}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range fresh.Forecasts {
		a, b := again.Forecasts[i], fresh.Forecasts[i]
		a.Millis, b.Millis = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("row %d with the kept quantile differs from a fresh sweep's:\n%+v\n%+v", i, a, b)
		}
	}
	// A quantile the memo holds is the one used: a different one moves
	// the verdict masses (here: none is a source above a huge bound).
	memo.m[key] = Forecast{Mode: massNullRow, MassNullQuantile: 1e9}
	for k, f := range memo.m {
		if f.Mode == ModePerNode || f.Mode == ModePerNode+" row" {
			delete(memo.m, k)
		}
	}
	odd, err := SweepEpsilons(ctx, EpsilonSweep{Graph: base, Epsilons: []float64{4}, Modes: perNode, Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	o, f := odd.Forecasts[0].VerdictRate, fresh.Forecasts[0].VerdictRate
	if o == nil || f == nil || !(*f > 0) {
		t.Fatalf("no verdict rate to compare: %v, %v", o, f)
	}
	if *o == *f {
		t.Fatalf("a kept quantile of 1e9 left the verdict rate at %g: the sweep drew its own", *o)
	}
}

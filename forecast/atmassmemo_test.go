package forecast

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestAtMassMemo: locate's verdict forecast is a function of its inputs —
// AtMass run twice with two worker counts gives the same JSON — so a
// memo may hold it: the first AtMassMemo simulates and keeps it (under
// its key and the caller's), the second reads it back marked reused and
// otherwise what AtMass computes (the oracle), and AtMassHeld says so; a
// forecast with another seed, mass or trials is not held, and one whose
// trials a time budget cuts is neither read nor kept.
func TestAtMassMemo(t *testing.T) {
	g, part, err := laplacian.Generate("sbm:sizes=20x20,pin=0.3,pout=0.02,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.05, Trials: 20, Seed: 5}
	m := MassEstimate{Mass: 2, Low: 1.5}
	jsonOf := func(f *Forecast) string {
		f.Reused = false
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	oracle, err := AtMass(ctx, e, m)
	if err != nil {
		t.Fatal(err)
	}
	other := e
	other.Workers = 1
	if again, err := AtMass(ctx, other, m); err != nil || jsonOf(again) != jsonOf(oracle) {
		t.Fatalf("AtMass is not a function of its inputs: %v\n%s\n%s", err, jsonOf(again), jsonOf(oracle))
	}

	memo := &mapMemo{m: map[string]Forecast{}}
	if AtMassHeld(e, m, memo) {
		t.Fatal("an empty memo holds the forecast")
	}
	first, err := AtMassMemo(ctx, e, m, memo, "request")
	if err != nil || first.Reused || memo.stores != 2 {
		t.Fatalf("first: %+v, %v, %d stored; want simulated and kept under two keys", first, err, memo.stores)
	}
	if _, ok := memo.m["request"]; !ok || !AtMassHeld(e, m, memo) {
		t.Fatal("the kept forecast is not held under both keys")
	}
	second, err := AtMassMemo(ctx, e, m, memo)
	if err != nil || !second.Reused || memo.stores != 2 || jsonOf(second) != jsonOf(oracle) {
		t.Fatalf("second: %v, reused %v, %d stored\n%s\nwant AtMass's\n%s", err, second.Reused, memo.stores, jsonOf(second), jsonOf(oracle))
	}
	seed, trials := e, e
	seed.Seed, trials.Trials = 6, 21
	for name, c := range map[string]struct {
		e Simulation
		m MassEstimate
	}{"seed": {seed, m}, "trials": {trials, m}, "mass": {e, MassEstimate{Mass: 2, Low: 1.4}}} {
		if AtMassHeld(c.e, c.m, memo) {
			t.Errorf("another %s: held", name)
		}
	}
	budget := e
	budget.TimeBudget = 1e9
	if AtMassHeld(budget, m, memo) {
		t.Error("a forecast whose trials a time budget cuts is held")
	}
	if f, err := AtMassMemo(ctx, budget, m, memo); err != nil || f.Reused || memo.stores != 2 {
		t.Errorf("with a time budget: %v, reused %v, %d stored; want simulated, nothing kept", err, f.Reused, memo.stores)
	}
}

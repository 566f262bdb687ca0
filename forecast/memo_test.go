package forecast

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// mapMemo is a Memo in memory that counts what it was asked.
type mapMemo struct {
	m             map[string]Forecast
	loads, stores int
}

func (m *mapMemo) Load(key string) (Forecast, bool) {
	m.loads++
	f, ok := m.m[key]
	return f, ok
}

func (m *mapMemo) Store(key string, f Forecast) {
	m.stores++
	m.m[key] = f
}

// memoSimulation is the memo tests' simulation: three blocks of 30
// nodes, Δ2 at τ = 1, 20 trials.
func memoSimulation(t *testing.T) Simulation {
	t.Helper()
	return memoSimulationOn(t, "sbm:sizes=30x30x30,pin=0.3,pout=0.02,seed=3")
}

// memoSimulationOn is memoSimulation's on the generated graph gen.
func memoSimulationOn(t *testing.T, gen string) Simulation {
	t.Helper()
	g, part, err := laplacian.Generate(gen)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Simulation{Graph: g, Partition: part, Tau: 1, Delta: 1e-6, Trials: 20, Seed: 5, Sensitivity: &s}
}

// TestSweepMemo: a sweep run again with a Memo returns every forecast it
// computed the first time — the same rows, each marked reused — and
// simulates nothing, nor computes a ceiling again (a second memo that holds nothing would); a sweep
// with another ε, seed, trials or partition finds none of them.
func TestSweepMemo(t *testing.T) {
	base := memoSimulation(t)
	g, part := base.Graph, base.Partition
	memo := &mapMemo{m: map[string]Forecast{}}
	sweep := EpsilonSweep{Graph: base, Epsilons: []float64{1, 4}, Memo: memo}
	ctx := context.Background()
	first, err := SweepEpsilons(ctx, sweep)
	if err != nil {
		t.Fatal(err)
	}
	if memo.stores != 7 { // two modes × two ε, the two ε's ceilings and the mass null quantile
		t.Fatalf("stored %d forecasts, want 7", memo.stores)
	}
	again, err := SweepEpsilons(ctx, sweep)
	if err != nil {
		t.Fatal(err)
	}
	if memo.stores != 7 {
		t.Fatalf("the second sweep stored %d more: it simulated again", memo.stores-7)
	}
	for i, f := range again.Forecasts {
		if !f.Reused || first.Forecasts[i].Reused {
			t.Fatalf("row %d: reused %v then %v", i, first.Forecasts[i].Reused, f.Reused)
		}
		f.Reused = false
		if !reflect.DeepEqual(f, first.Forecasts[i]) {
			t.Fatalf("row %d differs when reused:\n%+v\n%+v", i, f, first.Forecasts[i])
		}
	}
	other := part
	other = append([]int(nil), other...)
	other[0], other[len(other)-1] = other[len(other)-1], other[0]
	for name, e := range map[string]Simulation{
		"seed":      func() Simulation { c := base; c.Seed++; return c }(),
		"trials":    func() Simulation { c := base; c.Trials++; return c }(),
		"partition": func() Simulation { c := base; c.Partition = other; return c }(),
		"tau":       func() Simulation { c := base; c.Tau = 1.5; return c }(),
	} {
		for _, eps := range []float64{1, 2} {
			if name == "seed" && eps == 2 {
				continue
			}
			p := EpsilonSweep{Graph: e, Epsilons: []float64{eps}, Memo: memo}
			fp := g.Fingerprint()
			for _, mode := range []string{ModePerNode, ModeAnswer} {
				if _, ok := memo.m[p.memoKey(&fp, mode+" row", eps)]; ok {
					t.Fatalf("%s changed, ε %g: the memo answers with another forecast", name, eps)
				}
			}
		}
	}
	timed := EpsilonSweep{Graph: base, Epsilons: []float64{1}, Memo: memo}
	timed.Graph.TimeBudget = time.Minute
	fp := g.Fingerprint()
	if k := timed.memoKey(&fp, ModePerNode, 1); k != "" {
		t.Fatalf("a time-budgeted sweep has key %q: its trials depend on time", k)
	}
}

// TestSweepExactRows: rows given exactly are returned as given, with their
// ceilings, and not simulated — a mode whose listed ε all have one runs no
// trials (no progress under its bars); an ε without one is simulated.
func TestSweepExactRows(t *testing.T) {
	g, part, err := laplacian.Generate("sbm:sizes=30x30x30,pin=0.3,pout=0.02,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	var trials bool
	base := Simulation{Graph: g, Partition: part, Tau: 1, Delta: 1e-6, Trials: 20, Seed: 5,
		Progress: func(done, total int) { trials = true }}
	given := Forecast{Mode: ModeAnswer, Epsilon: 1, CommunityAccuracy: 0.123, Exact: true}
	bars := map[string]bool{}
	progress := func(step string) func(done, total int) {
		return func(done, total int) { bars[step] = true }
	}
	for _, eps := range [][]float64{{1}, {1, 4}} {
		clear(bars)
		trials = false
		res, err := SweepEpsilons(context.Background(), EpsilonSweep{Graph: base, Epsilons: eps, Modes: []string{ModeAnswer},
			Exact: map[string]map[float64]Forecast{ModeAnswer: {1: given}}, Progress: progress})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Forecasts[0]
		want := given
		want.Ceiling = routedCeilingOf(t, base, 1)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ε %v: the given row came back as %+v", eps, got)
		}
		if simulated := trials || bars["private-answer calibration"]; simulated != (len(eps) > 1) {
			t.Errorf("ε %v: trials simulated %v, calibrated %v", eps, trials, bars["private-answer calibration"])
		}
		if len(eps) > 1 && (res.Forecasts[1].Exact || res.Forecasts[1].Trials != 20) {
			t.Errorf("the ε without a given row: %+v", res.Forecasts[1])
		}
	}
}

// routedCeilingOf is the routed ceiling of e's graph and partition
// at eps, as a sweep computes it.
func routedCeilingOf(t *testing.T, e Simulation, eps float64) float64 {
	c, err := RoutedCeiling(context.Background(), e.Graph, e.Partition, eps, e.Delta)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

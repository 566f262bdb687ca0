package forecast

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// countingTrials is a mapMemo that keeps trials too (sweep sets its
// methods as the sweep's KeptTrials, KeepTrials and HasTrials), counting
// what it is told.
type countingTrials struct {
	mapMemo
	mu                          sync.Mutex
	blocks                      map[string][]float64
	trialLoads, kept, trialHits int
}

func newCountingTrials() *countingTrials {
	return &countingTrials{mapMemo: mapMemo{m: map[string]Forecast{}}, blocks: map[string][]float64{}}
}

func (m *countingTrials) LoadTrials(key string, floats int) ([]float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trialLoads++
	x, ok := m.blocks[key]
	if !ok || len(x) != floats {
		return nil, false
	}
	m.trialHits++
	return slices.Clone(x), true
}

func (m *countingTrials) HasTrials(key string, floats int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.blocks[key]) == floats
}

func (m *countingTrials) StoreTrials(key string, x []float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kept++
	m.blocks[key] = slices.Clone(x)
}

// TestSweepKeepsThePoolOfTrials: a sweep whose Memo keeps trials keeps
// every block of its pool it drew, and a sweep with one ε more on that
// memo draws no block (each drawn block is kept: none is kept anew) but
// reads them — and its new ε's row is, to the bit, that of a sweep on an
// empty memo, which draws every block itself. On main the pool was never
// kept: the second sweep drew it again.
func TestSweepKeepsThePoolOfTrials(t *testing.T) {
	base := pooledSimulation(t)
	ctx := context.Background()
	memo := newCountingTrials()
	if _, err := SweepEpsilons(ctx, memo.sweep(base, 1)); err != nil {
		t.Fatal(err)
	}
	drawn := memo.kept
	if drawn == 0 {
		t.Fatal("the sweep kept no block of its trials")
	}
	if !memo.sweep(base, 1, 4).HeldTrials() || newCountingTrials().sweep(base, 1, 4).HeldTrials() {
		t.Fatal("HeldTrials does not say whether the pool is kept")
	}
	again, err := SweepEpsilons(ctx, memo.sweep(base, 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if memo.kept != drawn || memo.trialHits == 0 {
		t.Fatalf("the sweep with one ε more drew %d blocks again and read %d kept", memo.kept-drawn, memo.trialHits)
	}
	freshMemo := newCountingTrials()
	fresh, err := SweepEpsilons(ctx, freshMemo.sweep(base, 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if freshMemo.kept == 0 || freshMemo.trialHits != 0 {
		t.Fatalf("a sweep on an empty memo drew %d blocks and read %d", freshMemo.kept, freshMemo.trialHits)
	}
	a, b := rowAt(t, again.Forecasts, 4), rowAt(t, fresh.Forecasts, 4)
	a.Millis, b.Millis = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the row at ε = 4 from the kept trials differs from a fresh sweep's:\n%+v\n%+v", a, b)
	}
	// Another seed names other trials: none of the kept blocks is read.
	other := base
	other.Seed++
	hits := memo.trialHits
	if _, err := SweepEpsilons(ctx, memo.sweep(other, 4)); err != nil {
		t.Fatal(err)
	}
	if memo.trialHits != hits {
		t.Fatalf("a sweep at another seed read %d blocks kept for the first", memo.trialHits-hits)
	}
}

// pooledSimulation is memoSimulation's on a graph large enough that its
// recovery model has an operator (a dense model's trials are not pooled
// with their correlations: nothing of them is kept).
func pooledSimulation(t *testing.T) Simulation {
	t.Helper()
	return memoSimulationOn(t, "sbm:sizes="+sizes(20, 90)+",pin=0.05,pout=0.001,seed=3")
}

// sweep is an EpsilonSweep on m keeping its trials.
func (m *countingTrials) sweep(e Simulation, eps ...float64) EpsilonSweep {
	return EpsilonSweep{Graph: e, Epsilons: eps, Modes: []string{ModePerNode}, Memo: m,
		KeptTrials: m.LoadTrials, KeepTrials: m.StoreTrials, HasTrials: m.HasTrials}
}

// rowAt is the per-node row at ε among rows.
func rowAt(t *testing.T, rows []Forecast, eps float64) Forecast {
	t.Helper()
	for _, f := range rows {
		if f.Epsilon == eps && f.Mode == ModePerNode {
			return f
		}
	}
	t.Fatalf("no per-node row at ε = %g", eps)
	return Forecast{}
}

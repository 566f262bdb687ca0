package community

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// The estimate grows linearly with the graph, covers the graph itself
// and grows with the workers.
func TestPeakBytes(t *testing.T) {
	one, _, err := laplacian.Generate("pa:n=5000,m=4,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	var edges []laplacian.Edge
	one.ForEachEdge(func(i, j int, w float64) {
		n := int32(one.N())
		edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w}, laplacian.Edge{U: int32(i) + n, V: int32(j) + n, Weight: w})
	})
	two, err := laplacian.FromEdges(2*one.N(), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, keyed := range []int64{0, FileKeyBytes, Neo4jKeyBytes} {
		e1, e2 := PeakBytes(one, keyed, 2)-processBytes, PeakBytes(two, keyed, 2)-processBytes
		if r := float64(e2) / float64(e1); math.Abs(r-2) > 0.01 {
			t.Errorf("%d key bytes: twice the graph needs %.3f× the memory, want 2×", keyed, r)
		}
		if e1 <= int64(gcGrowth*float64(one.Bytes())) {
			t.Errorf("%d key bytes: estimate %d below the graph's own %d bytes", keyed, e1, one.Bytes())
		}
	}
	if runtime.GOMAXPROCS(0) > 1 && PeakBytes(one, 0, 2) <= PeakBytes(one, 0, 1) {
		t.Error("two workers estimated no more than one")
	}
}

// The detection holds to the estimate through a soft memory limit with
// the heap-growth trigger off, and puts both settings back afterwards;
// GOGC or GOMEMLIMIT in the environment leave the runtime alone.
func TestHoldMemoryTo(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1) // a negative limit reads without changing
	gcBefore := debug.SetGCPercent(100)
	debug.SetGCPercent(gcBefore)
	estimate := int64(900 << 20)
	restore := HoldMemoryTo(estimate)
	want := int64(float64(estimate-processBytes) / mappedShare)
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("limit %d, want %d", got, want)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC %d while held, want off (-1)", got)
	}
	if want <= estimate-processBytes {
		t.Errorf("limit %d leaves less than the estimate's %d bytes to the runtime", want, estimate-processBytes)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after restore, want %d", got, before)
	}
	if got := debug.SetGCPercent(gcBefore); got != gcBefore {
		t.Errorf("GOGC %d after restore, want %d", got, gcBefore)
	}
	t.Setenv("GOGC", "50")
	held := HoldMemoryTo(estimate)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("GOGC set in the environment, yet the limit became %d", got)
	}
	held()
	t.Setenv("GOGC", "")
	held = HoldMemoryTo(heldFrom - 1)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("an estimate under heldFrom, yet the limit became %d", got)
	}
	held()
}

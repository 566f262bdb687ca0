package expm

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
)

// MeasureStepRate returns a positive, finite time a step for every worker
// of the process, and the reference constant on a graph without edges
// (no kernel to time). No timing is asserted.
func TestMeasureStepRate(t *testing.T) {
	g, err := laplacian.PreferentialAttachment(2000, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := MeasureStepRate(g, 20*time.Millisecond)
	if !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) || r.Workers != runtime.GOMAXPROCS(0) || r.Elapsed <= 0 {
		t.Errorf("rate %+v", r)
	}
	empty, err := laplacian.FromEdges(5, nil, nil, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := MeasureStepRate(empty, 0); r.Seconds != costStep/float64(r.Workers) {
		t.Errorf("edgeless: %+v, want the reference %g a worker", r, costStep)
	}
}

// settledRounds stops the rounds only once their median stands among
// rounds that agree: five rounds at least (a slow first one, caches cold,
// does not count against them), the three around the median within 3 %;
// fewer rounds, or middle rounds apart (a loaded machine), go on.
func TestSettledRounds(t *testing.T) {
	for _, c := range []struct {
		times []float64
		want  bool
	}{
		{[]float64{0.0217, 0.0090, 0.0089, 0.0090, 0.0091}, true},  // the first slow: cold caches
		{[]float64{0.0090, 0.0089, 0.0090, 0.0091}, false},         // four
		{[]float64{0.0217, 0.0073, 0.0090, 0.0090, 0.0084}, false}, // 0.0084 … 0.0090: 7 %
		{[]float64{0.010, 0.020, 0.0101, 0.030, 0.0102, 0.040, 0.0103}, false},
		{[]float64{0.010, 0.020, 0.0101, 0.0102, 0.0103, 0.040, 0.0103}, true},
	} {
		if got := settledRounds(c.times); got != c.want {
			t.Errorf("settledRounds(%v) = %v, want %v", c.times, got, c.want)
		}
	}
}

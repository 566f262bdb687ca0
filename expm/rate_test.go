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

// rateShape never times a block narrower than the AVX2 kernel's chunk of
// eight columns (narrower blocks run the Go path, several times slower a
// column than any block the work applies): on LFR 10⁵'s 1 536 642
// nonzeros with the trials' 150 ms it shrank 32 columns to 2, and the
// rate priced locate's trials at 7× their time. A block of 32 on a graph
// that fits the budget stays 32, a width asked for is kept, and the
// degree stays within [minRateDegree, rateDegree].
func TestRateShapeKeepsTheKernelsChunk(t *testing.T) {
	for _, c := range []struct {
		nnz    float64
		budget time.Duration
		cols   []int
		want   int
	}{
		{1536642, 150 * time.Millisecond, nil, 8},
		{1536642, 300 * time.Millisecond, []int{16}, 8},
		{304078, 300 * time.Millisecond, nil, 32},
		{304078, 300 * time.Millisecond, []int{16}, 16},
		{1e3, 300 * time.Millisecond, []int{4}, 4},
	} {
		b, degree := rateShape(c.nnz, c.budget, c.cols...)
		if b != c.want {
			t.Errorf("nnz %g, %v, cols %v: %d columns, want %d", c.nnz, c.budget, c.cols, b, c.want)
		}
		if degree < minRateDegree || degree > rateDegree {
			t.Errorf("nnz %g: degree %d outside [%d, %d]", c.nnz, degree, minRateDegree, rateDegree)
		}
	}
}

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

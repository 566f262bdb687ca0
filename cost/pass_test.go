package cost

import (
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/laplacian"
)

// FirstEstimates keeps a measured model for its graph only, and refuses
// to keep one without a measured rate.
func TestFirstEstimates(t *testing.T) {
	g1, err := laplacian.Path(5)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := laplacian.Path(5)
	if err != nil {
		t.Fatal(err)
	}
	var r FirstEstimates
	if r.Of(g1) != nil {
		t.Fatal("the zero value holds a model")
	}
	r.Keep(g1, &answer.WorkEstimate{Steps: 7}) // reference rate: not measured
	r.Keep(g1, nil)
	if r.Of(g1) != nil {
		t.Fatal("kept a model without a measured rate")
	}
	w := answer.WorkEstimate{Steps: 7, MeasureMillis: 3, NanosPerStep: 2.5}
	r.Keep(g1, &w)
	got := r.Of(g1)
	if got == nil || *got != w {
		t.Fatalf("Of(g1) = %v, want %v", got, w)
	}
	got.Steps = 99 // a copy: the kept model is unchanged
	if r.Of(g1).Steps != 7 {
		t.Error("Of returned the kept model itself")
	}
	if r.Of(g2) != nil {
		t.Error("a model kept for another graph (equal, not the same)")
	}
}

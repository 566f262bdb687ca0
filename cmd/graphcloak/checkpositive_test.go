package main

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/job"
)

// checkPositiveFlag refuses what job.CheckPositive refuses, with the same
// exit code and the same words, naming the flag as the user typed it.
func TestCheckPositiveFlag(t *testing.T) {
	for _, v := range []float64{1, 1e-300, math.MaxFloat64, 0, -1, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)} {
		got, want := checkPositiveFlag("tau", v), job.CheckPositive("tau", v)
		if (got == nil) != (want == nil) || exitCode(got) != exitCode(want) {
			t.Errorf("%v: %v (exit %d), job says %v (exit %d)", v, got, exitCode(got), want, exitCode(want))
			continue
		}
		if got != nil && flagText(got) != flagText(want) {
			t.Errorf("%v: %q, job's words through the flag names %q", v, flagText(got), flagText(want))
		}
	}
}

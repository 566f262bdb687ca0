package community

import (
	"math"
	"testing"
)

// TestNoiseThreshold: 3× the prior where that is reachable; halfway between
// the prior and certainty where it is not (two equal communities: 75%).
func TestNoiseThreshold(t *testing.T) {
	for _, tc := range []struct{ prior, want float64 }{
		{0.5, 1.5}, {0.25, 2.5}, {0.2, 3}, {0.01, 3}, {1.0 / 3, 2},
	} {
		if got := NoiseThreshold(tc.prior); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("prior %g: threshold %g, want %g", tc.prior, got, tc.want)
		}
		// The threshold never asks for a posterior above 1.
		if got := NoiseThreshold(tc.prior) * tc.prior; got > 1 {
			t.Errorf("prior %g: threshold needs posterior %g > 1", tc.prior, got)
		}
	}
	two := func(top float64) *Report {
		return &Report{Communities: []Ranked{{ID: 0, Share: top, Size: 50}, {ID: 1, Share: 1 - top, Size: 50}}}
	}
	if two(0.88).NoiseDominated(100) {
		t.Error("88% on one of two equal communities flagged as noise")
	}
	if !two(0.6).NoiseDominated(100) {
		t.Error("60% on one of two equal communities not flagged")
	}
	many := &Report{Communities: []Ranked{{ID: 0, Share: 0.025, Size: 10}}}
	if !many.NoiseDominated(1000) { // prior 0.01, ratio 2.5 < 3
		t.Error("2.5× the prior of 1% not flagged")
	}
	if (&Report{NoSource: true}).NoiseDominated(10) {
		t.Error("no source flagged as noise-dominated")
	}
}

package forecast

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestAnswerableNotNamedWhateverTheSource: readings drowned in noise
// carry nothing about the source, so no community is answerable — yet a
// ranking that learns nothing names the largest community for every
// source, right 100% of the time for the sources in it. Before, that
// community was marked answerable (its rate above chance); now it is
// named as often when the source lies elsewhere, and is not.
func TestAnswerableNotNamedWhateverTheSource(t *testing.T) {
	g, part, err := laplacian.SBM([]int{40, 8, 6, 6}, 0.5, 0.02, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Simulate(context.Background(), Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 1e4, Trials: 300, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	f := Of(res)
	for _, c := range f.ByCommunity {
		t.Logf("community %s (%d nodes): right %.3f [%.3f, %.3f] of %d, named when elsewhere %.3f (≤ %.3f) of %d, answerable %v",
			c.Community, c.Size, c.Rate, c.Low, c.High, c.Trials, c.NamedElsewhere, c.ElsewhereHigh, c.ElsewhereTrials, c.Answerable)
		if c.Answerable {
			t.Errorf("community %s answerable from readings that carry nothing: right %.3f [%.3f, %.3f], named %.3f of the time when the source is elsewhere",
				c.Community, c.Rate, c.Low, c.High, c.NamedElsewhere)
		}
	}
	// The informative case stays answerable: noiseless readings.
	res, err = Simulate(context.Background(), Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 1e-6, Trials: 300, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	f = Of(res)
	for _, c := range f.ByCommunity {
		if c.Trials >= 20 && !c.Answerable {
			t.Errorf("noiseless readings: community %s not answerable (right %.3f [%.3f, %.3f] of %d, named elsewhere %.3f ≤ %.3f)",
				c.Community, c.Rate, c.Low, c.High, c.Trials, c.NamedElsewhere, c.ElsewhereHigh)
		}
	}
}

package stores

import (
	"context"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// A release's forecasts score the release's communities, and Leiden's
// when it names none — even on a generator with a planted partition,
// which a simulation's default (ScoredPartition's "") would take.
func TestForecastPartition(t *testing.T) {
	g, planted, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lg := &Graph{Spec: "karate", Graph: g, Partition: planted}
	_, leiden, _, err := lg.ScoredPartition(ctx, "leiden", 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	_, louvain, _, err := lg.ScoredPartition(ctx, "louvain", 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind string
		want []int
	}{{"", leiden}, {"leiden", leiden}, {"louvain", louvain}, {"planted", planted}} {
		got, err := lg.ForecastPartition(ctx, c.kind, 7)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("communities %q: %v (%v), want %v", c.kind, got, err, c.want)
		}
	}
	if slices.Equal(leiden, planted) {
		t.Log("Leiden found the planted partition: the default's test is weaker on karate")
	}
}

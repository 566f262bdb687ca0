package stores

import (
	"context"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
)

// TestDetection: a detection on a generated graph estimates its memory
// before it runs, finds the same partition for the same seed whatever the
// workers (Leiden) and summarises it with the estimate and the seed.
func TestDetection(t *testing.T) {
	ctx := context.Background()
	var first []int
	for _, workers := range []int{1, 3} {
		cfg := &config.Loaded{}
		cfg.Write.Concurrency, cfg.Write.RandomSeed = workers, 7
		st, err := Open(ctx, cfg, Options{}) // nothing opened: a generated graph
		if err != nil {
			t.Fatal(err)
		}
		d, err := st.LoadDetection(ctx, "karate")
		if err != nil {
			t.Fatal(err)
		}
		est := d.Estimate()
		if d.EstimatedBytes <= 0 || est.EstimatedBytes != d.EstimatedBytes || est.NodeCount != 34 || est.Graph != "karate" {
			t.Fatalf("estimate %+v", est)
		}
		part, sum, err := d.Detect(ctx, "leiden", 1)
		if err != nil {
			t.Fatal(err)
		}
		if sum.CommunityCount < 2 || sum.EstimatedBytes != d.EstimatedBytes || sum.RandomSeed != 7 || sum.Modularity != community.Modularity(d.Graph.Graph, part, 1) {
			t.Errorf("summary %+v", sum)
		}
		if first == nil {
			first = part
		} else if !slices.Equal(first, part) {
			t.Errorf("%d workers: another partition for the same seed", workers)
		}
	}
}

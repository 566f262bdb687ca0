package stores

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
)

// With a store, Leiden's partition (asked for, or the default on a graph
// without a planted one) is the one community.Leiden finds and is kept
// in the store; a planted default is the generator's and keeps nothing.
func TestScoredPartitionCached(t *testing.T) {
	ctx := context.Background()
	g, planted, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	want, err := community.Leiden(g, community.LeidenOptions{Resolution: 1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	work := &job.WorkCache{Dir: t.TempDir(), MACKey: []byte("0123456789abcdef0123456789abcdef"), Software: "v-test"}
	withPlanted := &Graph{Spec: "karate", Graph: g, Partition: planted}
	kind, part, _, err := withPlanted.ScoredPartitionCached(ctx, "", 1, 7, work)
	if err != nil || kind != "planted" || !slices.Equal(part, planted) {
		t.Fatalf("planted default: %q %v %v", kind, part, err)
	}
	if files, _ := os.ReadDir(work.Dir); len(files) != 0 {
		t.Errorf("a planted partition kept %d files in the store", len(files))
	}
	without := &Graph{Spec: "file:k.csv", Graph: g}
	for _, k := range []string{"", "leiden"} {
		kind, part, _, err := without.ScoredPartitionCached(ctx, k, 1, 7, work)
		if err != nil || kind != "leiden" || !slices.Equal(part, want) {
			t.Errorf("kind %q: %q %v %v, want leiden %v", k, kind, part, err, want)
		}
	}
	if files, _ := os.ReadDir(work.Dir); len(files) == 0 {
		t.Error("Leiden's partition was not kept in the store")
	}
}

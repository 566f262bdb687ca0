package stores

import (
	"context"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

func TestScoredPartition(t *testing.T) {
	g, planted, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	flags := func(p errkind.Param) string { return "--" + string(p) }
	withPlanted := &Graph{Spec: "karate", Graph: g, Partition: planted}
	without := &Graph{Spec: "file:k.csv", Graph: g}
	for _, c := range []struct {
		name, kind, wantKind, wantErr string
		lg                            *Graph
	}{
		{"planted by default", "", "planted", "", withPlanted},
		{"leiden without a planted one", "", "leiden", "", without},
		{"louvain", "louvain", "louvain", "", without},
		{"no planted partition", "planted", "", `--communities planted: graph "file:k.csv" has no planted partition`, without},
	} {
		kind, part, _, err := c.lg.ScoredPartition(context.Background(), c.kind, 1, 1)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(errkind.Render(err, flags), c.wantErr) || errkind.Of(err) != errkind.BadInput {
				t.Errorf("%s: %v, want bad input %q", c.name, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case kind != c.wantKind || len(part) != g.N():
			t.Errorf("%s: kind %q with %d labels, want %q", c.name, kind, len(part), c.wantKind)
		}
	}
}

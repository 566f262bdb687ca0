package inputfiles

import (
	"testing"

	"github.com/graphcloak/graphcloak/connector"
)

// NodeCount counts each key once, whichever end of whichever edge names
// it.
func TestNodeCount(t *testing.T) {
	for _, c := range []struct {
		edges []connector.LoadEdge
		want  int
	}{
		{nil, 0},
		{[]connector.LoadEdge{{Source: "a", Target: "b"}}, 2},
		{[]connector.LoadEdge{{Source: "a", Target: "b"}, {Source: "b", Target: "c"}, {Source: "c", Target: "a"}, {Source: "d", Target: "e"}}, 5},
		{[]connector.LoadEdge{{Source: "1", Target: "2"}, {Source: "2", Target: "1"}}, 2},
	} {
		if got := (&LoadFiles{Edges: c.edges}).NodeCount(); got != c.want {
			t.Errorf("%v: %d nodes, want %d", c.edges, got, c.want)
		}
	}
}

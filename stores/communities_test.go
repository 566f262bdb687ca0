package stores

import (
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// serve's cache: the same graph reuses the partition, a small change
// updates it (community.Update on the carried partition), a large one
// recomputes it, and another scope has its own entry.
func TestCommunityCache(t *testing.T) {
	g0, _, err := laplacian.Generate("pa:n=3000,m=3,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	withEdges := func(keep func(k int) bool, extra ...laplacian.Edge) *laplacian.Graph {
		var edges []laplacian.Edge
		k := 0
		g0.ForEachEdge(func(i, j int, w float64) {
			if keep(k) {
				edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w})
			}
			k++
		})
		g, err := laplacian.FromEdges(g0.N(), nil, append(edges, extra...), laplacian.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	small := withEdges(func(k int) bool { return k != 5 }) // one edge fewer: 2 changed nodes
	large := withEdges(func(k int) bool { return k%10 != 0 })
	opt := community.LeidenOptions{Seed: 4}
	c := &CommunityCache{} // the zero value is an empty cache
	fresh, _ := community.Leiden(g0, opt)
	steps := []struct {
		scope string
		g     *laplacian.Graph
		how   string
		want  func() []int
	}{
		{"a", g0, "computed", func() []int { return fresh }},
		{"a", g0, "reused", func() []int { return fresh }},
		{"a", small, "updated (2 changed nodes)", func() []int {
			prev, changed := community.Carry(g0, fresh, small)
			p, _ := community.Update(small, prev, changed, opt)
			return p
		}},
		{"a", large, "computed (the graph changed much)", func() []int { p, _ := community.Leiden(large, opt); return p }},
		{"b", g0, "computed", func() []int { return fresh }},
	}
	for i, s := range steps {
		part, how, err := c.Leiden(s.scope, s.g, opt)
		if err != nil {
			t.Fatal(err)
		}
		if how != s.how {
			t.Errorf("step %d: %s, want %s", i, how, s.how)
		}
		if want := s.want(); !slices.Equal(part, want) {
			t.Errorf("step %d (%s): not the expected partition", i, how)
		}
	}
}

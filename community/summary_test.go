package community

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestSummarise: a partition's summary counts its communities, lists
// their sizes largest first and carries the partition's modularity.
func TestSummarise(t *testing.T) {
	g, _ := laplacian.Karate()
	part := make([]int, g.N())
	for i := range part {
		part[i] = i % 3
	}
	s := Summarise("karate", g, part, "leiden", 1)
	if s.CommunityCount != 3 || len(s.CommunitySizes) != 3 || s.CommunitySizes[0] < s.CommunitySizes[2] {
		t.Errorf("sizes %v, count %d", s.CommunitySizes, s.CommunityCount)
	}
	if s.Modularity != Modularity(g, part, 1) || s.NodeCount != g.N() || s.RelationshipCount != g.NumEdges() {
		t.Errorf("summary %+v", s)
	}
	nodes := Nodes(g, part)
	if len(nodes) != g.N() || nodes[4].Node != g.Key(4) || nodes[4].Community != 1 {
		t.Errorf("nodes %v", nodes[:5])
	}
}

// TestMemoryEstimateJSON: the estimate's JSON carries the bytes and the
// same in MiB, readable.
func TestMemoryEstimateJSON(t *testing.T) {
	b, err := json.Marshal(NewMemoryEstimate("karate", karate(), 3<<20))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); !strings.Contains(got, `"estimatedBytes":3145728`) || !strings.Contains(got, `"estimated":"3.0 MiB"`) || !strings.Contains(got, `"nodeCount":34`) {
		t.Errorf("JSON %s", got)
	}
}

func karate() *laplacian.Graph {
	g, _ := laplacian.Karate()
	return g
}

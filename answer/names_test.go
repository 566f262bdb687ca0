package answer

import (
	"context"
	"strconv"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// A model of a partition without names (Leiden's) names each community by
// the partition's own id — what communities and locate print — never by
// the geometry's canonical id: every node's community is named and
// numbered as the partition has it (karate: the 12-node faction is "1"
// there; the answer published "2").
func TestModelNamesArePartitionIDs(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(context.Background(), g, 1, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	renamed := false
	for s, c := range part {
		q := m.community[s]
		if q < 0 {
			continue
		}
		renamed = renamed || q != c
		if len(m.Names) <= q || m.Names[q] != strconv.Itoa(c) || m.PartitionID(q) != c {
			t.Fatalf("node %s of community %d: named %v", g.Key(s), c, m.Names)
		}
	}
	if !renamed {
		t.Log("the geometry kept the partition's ids here: the test checks the names only")
	}
}

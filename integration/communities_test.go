package integration

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// graphcloak communities --graph neo4j detects communities on the
// projection and writes them to every node; the property read back is the
// partition the command reported (its modularity recomputed from the
// fixture's own edges), and it recovers the planted blocks.
func TestCommunitiesWriteBack(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{60, 50, 40}, 0.2, 0.005, 11)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	r := runCLI(t, s.Password, append([]string{"communities"}, append(e.projectionFlags(),
		"--community-write-property", e.comm, "-o", "json")...)...)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var sum struct {
		CommunityCount, NodePropertiesWritten int
		Modularity                            float64
		WriteProperty                         string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.Stdout)
	}
	if sum.NodePropertiesWritten != len(f.Keys) || sum.WriteProperty != e.comm {
		t.Errorf("summary %+v", sum)
	}
	recs := query(t, d, "MATCH (n:`"+f.Label+"`) RETURN n.key, n.`"+e.comm+"`", nil)
	byKey := map[int64]int{}
	for _, rec := range recs {
		c, ok := rec.Values[1].(int64)
		if !ok {
			t.Fatalf("node %v has no integer %s", rec.Values[0], e.comm)
		}
		byKey[rec.Values[0].(int64)] = int(c)
	}
	// The fixture's graph built independently of the connector.
	var edges []laplacian.Edge
	for _, rl := range f.Rels {
		edges = append(edges, laplacian.Edge{U: int32(rl.U), V: int32(rl.V), Weight: rl.W})
	}
	g, err := laplacian.FromEdges(len(f.Keys), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, len(f.Keys))
	planted := make([]int, len(f.Keys))
	for i, k := range f.Keys {
		c, ok := byKey[k]
		if !ok {
			t.Fatalf("node %d not written", k)
		}
		part[i], planted[i] = c, int(f.Community[i])
	}
	if q := community.Modularity(g, part, 1); math.Abs(q-sum.Modularity) > 1e-9 {
		t.Errorf("modularity of the written communities %.10f, reported %.10f", q, sum.Modularity)
	}
	if nmi := community.NMI(part, planted); nmi < 0.9 {
		t.Errorf("NMI with the planted blocks %.3f", nmi)
	}
}

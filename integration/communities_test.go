package integration

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/community"
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
	// The written partition against the fixture's graph, built
	// independently of the connector.
	g, part := fixtureGraph(t, f), partitionOf(t, d, f, e.comm)
	planted := plantedOf(f)
	if q := community.Modularity(g, part, 1); math.Abs(q-sum.Modularity) > 1e-9 {
		t.Errorf("modularity of the written communities %.10f, reported %.10f", q, sum.Modularity)
	}
	if nmi := community.NMI(part, planted); nmi < 0.9 {
		t.Errorf("NMI with the planted blocks %.3f", nmi)
	}
}

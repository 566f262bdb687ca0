package integration

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// partitionOf reads an integer community property of the fixture's nodes
// in fixture order.
func partitionOf(t *testing.T, d neo4j.DriverWithContext, f *fixture, prop string) []int {
	t.Helper()
	byKey := map[int64]int{}
	for _, rec := range query(t, d, "MATCH (n:`"+f.Label+"`) RETURN n.key, n.`"+prop+"`", nil) {
		c, ok := rec.Values[1].(int64)
		if !ok {
			t.Fatalf("node %v has no integer %s", rec.Values[0], prop)
		}
		byKey[rec.Values[0].(int64)] = int(c)
	}
	part := make([]int, len(f.Keys))
	for i, k := range f.Keys {
		c, ok := byKey[k]
		if !ok {
			t.Fatalf("node %d has no %s", k, prop)
		}
		part[i] = c
	}
	return part
}

// plantedOf returns the fixture's planted blocks in fixture order.
func plantedOf(f *fixture) []int {
	planted := make([]int, len(f.Keys))
	for i := range planted {
		planted[i] = int(f.Community[i])
	}
	return planted
}

// fixtureGraph builds the fixture's graph independently of the connector.
func fixtureGraph(t *testing.T, f *fixture) *laplacian.Graph {
	t.Helper()
	var edges []laplacian.Edge
	for _, rl := range f.Rels {
		edges = append(edges, laplacian.Edge{U: int32(rl.U), V: int32(rl.V), Weight: rl.W})
	}
	g, err := laplacian.FromEdges(len(f.Keys), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// GDS's Leiden (gds.leiden.write, run with Cypher as a GDS user would)
// and graphcloak's Leiden on the same weighted fixture: both recover the
// planted blocks, agree with each other, and reach the same modularity
// (recomputed independently from the fixture's edges). locate then reads
// the GDS-written communities with --communities property:NAME.
func TestGDSLeidenAgainstGraphcloak(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{50, 40, 30}, 0.25, 0.01, 21)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	gdsProp := e.comm + "_gds"
	name := "t_" + strings.ToLower(e.scope)
	query(t, d, "CALL gds.graph.project($name, $label, {R: {type: $type, orientation: 'UNDIRECTED', properties: 'w'}})",
		map[string]any{"name": name, "label": f.Label, "type": f.RelType})
	query(t, d, "CALL gds.leiden.write($name, {writeProperty: $p, relationshipWeightProperty: 'w', randomSeed: 7, concurrency: 1})",
		map[string]any{"name": name, "p": gdsProp})
	query(t, d, "CALL gds.graph.drop($name)", map[string]any{"name": name})

	if r := runCLI(t, s.Password, append([]string{"communities"}, append(e.projectionFlags(),
		"--community-write-property", e.comm, "-o", "json")...)...); r.Code != 0 {
		t.Fatalf("communities: exit %d: %s", r.Code, r.Stderr)
	}
	g := fixtureGraph(t, f)
	planted := plantedOf(f)
	gdsPart, gcPart := partitionOf(t, d, f, gdsProp), partitionOf(t, d, f, e.comm)
	qGDS, qGC := community.Modularity(g, gdsPart, 1), community.Modularity(g, gcPart, 1)
	nmiGDS, nmiGC, nmiBoth := community.NMI(gdsPart, planted), community.NMI(gcPart, planted), community.NMI(gdsPart, gcPart)
	t.Logf("modularity: GDS Leiden %.4f, graphcloak Leiden %.4f; NMI with the planted blocks %.3f / %.3f; with each other %.3f",
		qGDS, qGC, nmiGDS, nmiGC, nmiBoth)
	if nmiGDS < 0.9 || nmiGC < 0.9 || nmiBoth < 0.9 {
		t.Errorf("NMI: GDS %.3f, graphcloak %.3f with the planted blocks, %.3f with each other; want ≥ 0.9", nmiGDS, nmiGC, nmiBoth)
	}
	if qGC < qGDS-0.005 {
		t.Errorf("graphcloak's modularity %.4f below GDS's %.4f − 0.005", qGC, qGDS)
	}

	// locate on the communities GDS wrote.
	rel := releaseJSON(t, e, e.releaseArgs("epoch-gds"))
	loc := runCLI(t, s.Password, replaceFlag(e.locateArgs(rel["runId"].(string)), "--communities", "property:"+gdsProp)...)
	if loc.Code != 0 {
		t.Fatalf("locate --communities property:%s: exit %d: %s", gdsProp, loc.Code, loc.Stderr)
	}
	written := partitionOf(t, d, f, e.comm)
	if nmi := community.NMI(written, gdsPart); nmi < 1-1e-9 {
		t.Errorf("locate wrote communities that are not GDS's (NMI %.12f with them)", nmi)
	}
}

// locate --communities gds:leiden end to end: the same projection is
// projected in GDS, streamed, dropped; the communities written are GDS
// Leiden's with that seed; no projection is left behind.
func TestLocateWithGDSCommunities(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{50, 40, 30}, 0.25, 0.01, 22)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	rel := releaseJSON(t, e, e.releaseArgs("epoch-gds"))
	for _, algo := range []string{"gds:leiden", "gds:louvain"} {
		loc := runCLI(t, s.Password, replaceFlag(e.locateArgs(rel["runId"].(string)), "--communities", algo)...)
		if loc.Code != 0 {
			t.Fatalf("locate --communities %s: exit %d: %s", algo, loc.Code, loc.Stderr)
		}
		var sum struct{ CommunityCount int }
		if err := json.Unmarshal([]byte(loc.Stdout), &sum); err != nil {
			t.Fatal(err)
		}
		part := partitionOf(t, d, f, e.comm)
		planted := plantedOf(f)
		nmi := community.NMI(part, planted)
		q := community.Modularity(fixtureGraph(t, f), part, 1)
		t.Logf("%s: %d communities, modularity %.4f, NMI with the planted blocks %.3f", algo, sum.CommunityCount, q, nmi)
		if nmi < 0.9 || math.IsNaN(q) {
			t.Errorf("%s: NMI %.3f with the planted blocks", algo, nmi)
		}
		if left := query(t, d, "CALL gds.graph.list() YIELD graphName WHERE graphName STARTS WITH 'graphcloak_' RETURN graphName", nil); len(left) != 0 {
			t.Errorf("%s left projections behind: %v", algo, left)
		}
	}
	// gds:louvain has no resolution; graph outside Neo4j: usage errors.
	if r := runCLI(t, s.Password, append(replaceFlag(e.locateArgs(rel["runId"].(string)), "--communities", "gds:louvain"), "--resolution", "2")...); r.Code != 2 {
		t.Errorf("gds:louvain --resolution 2: exit %d, want 2: %s", r.Code, r.Stderr)
	}
}

// One partition, one name, for the communities GDS finds (issue 81):
// locate, the private answer and the property locate writes to Neo4j name
// each community of gds:leiden and gds:louvain by graphcloak's one rule
// (community.Canonical) — numbered from 0 in order of each community's
// first node in key order (integer keys as numbers) — never by GDS's own
// community ids, which are internal numbers. The fixture's keys run
// against its creation order, so naming in read order is caught too. The
// oracle is independent: the written membership, its communities numbered
// here by the keys' numeric order.
func TestGDSCommunitiesHaveTheOneName(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 25, 20}, 0.3, 0.02)
	for i := range f.Keys {
		f.Keys[i] = int64(1000 + 3*(len(f.Keys)-1-i)) // the last node created has the smallest key
	}
	diffuseObs(t, f, 5, 0.5, 3)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DELETE r", map[string]any{"p": e.scope})
	})
	rel := releaseJSON(t, e, e.releaseArgs("epoch-names"))
	for i, algo := range []string{"gds:leiden", "gds:louvain"} {
		loc := runCLI(t, s.Password, replaceFlag(e.locateArgs(rel["runId"].(string)), "--communities", algo)...)
		if loc.Code != 0 {
			t.Fatalf("locate --communities %s: exit %d: %s", algo, loc.Code, loc.Stderr)
		}
		var located struct {
			Report struct{ Communities []gdsNamed }
		}
		if err := json.Unmarshal([]byte(loc.Stdout), &located); err != nil {
			t.Fatal(err)
		}
		size := canonicalSizes(t, algo, f, partitionOf(t, d, f, e.comm))
		checkNamedSizes(t, algo+": locate", located.Report.Communities, size)

		args := append([]string{"locate"}, e.projectionFlags()...)
		args = append(args, "--private-answer", "--value-property", "obs", "--communities", algo,
			"--tau", "0.5", "--epsilon", "0.5", "--ledger", "neo4j", "--scope", e.scope, "--epoch", fmt.Sprint("answer-", i),
			"--forecast-trials", "20", "-o", "json")
		r := runCLI(t, s.Password, args...)
		if r.Code != 0 {
			t.Fatalf("locate --private-answer --communities %s: exit %d: %s", algo, r.Code, r.Stderr)
		}
		var ans struct {
			Answer struct {
				Community string
				Posterior struct{ Communities []gdsNamed }
			}
		}
		if err := json.Unmarshal([]byte(r.Stdout), &ans); err != nil {
			t.Fatal(err)
		}
		checkNamedSizes(t, algo+": locate --private-answer", ans.Answer.Posterior.Communities, size)
		if _, ok := size[ans.Answer.Community]; !ok {
			t.Errorf("%s: the private answer names community %q, not one of %v", algo, ans.Answer.Community, size)
		}
	}
}

// gdsNamed is a community as locate's report and the answer's posterior
// name it.
type gdsNamed struct {
	Name string
	Size int
}

// canonicalSizes checks that the written community of each node (part,
// in fixture order) is its community's number by the one rule, computed
// here from the keys' numeric order, and returns each name's size.
func canonicalSizes(t *testing.T, algo string, f *fixture, part []int) map[string]int {
	t.Helper()
	order := make([]int, len(f.Keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(f.Keys[a], f.Keys[b]) })
	number := map[int]int{}
	size := map[string]int{}
	for _, i := range order {
		n, seen := number[part[i]]
		if !seen {
			n = len(number)
			number[part[i]] = n
		}
		if part[i] != n {
			t.Errorf("%s: node %d written in community %d; by the one rule (first node in key order) it is %d", algo, f.Keys[i], part[i], n)
			break
		}
		size[strconv.Itoa(n)]++
	}
	return size
}

// checkNamedSizes checks that rows name exactly the communities of size,
// each with its size.
func checkNamedSizes(t *testing.T, what string, rows []gdsNamed, size map[string]int) {
	t.Helper()
	if len(rows) != len(size) {
		t.Errorf("%s names %d communities, the written ones are %d", what, len(rows), len(size))
	}
	for _, r := range rows {
		if size[r.Name] != r.Size {
			t.Errorf("%s calls a community of %d nodes %q; the written %q has %d nodes", what, r.Size, r.Name, r.Name, size[r.Name])
		}
	}
}

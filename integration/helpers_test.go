package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// server is the Neo4j the tests use, from the environment (scripts/test.sh
// starts one and exports it).
type server struct {
	URI, User, Password string
}

// neo4jServer returns the test server or skips the test with the reason;
// with GRAPHCLOAK_REQUIRE_NEO4J=1 (CI, scripts/test.sh) a missing server
// fails the test instead.
func neo4jServer(t testing.TB) server {
	t.Helper()
	s := server{URI: os.Getenv("NEO4J_URI"), User: os.Getenv("NEO4J_USER"), Password: os.Getenv("NEO4J_PASSWORD")}
	if s.User == "" {
		s.User = "neo4j"
	}
	if s.URI == "" {
		msg := "NEO4J_URI is not set: run scripts/test.sh (starts Neo4j 5.26 from Maven Central) or export NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD"
		if os.Getenv("GRAPHCLOAK_REQUIRE_NEO4J") == "1" {
			t.Fatal(msg + " (GRAPHCLOAK_REQUIRE_NEO4J=1: a missing Neo4j is a failure)")
		}
		t.Skip(msg)
	}
	return s
}

func (s server) options() connector.Options {
	return connector.Options{URI: s.URI, User: s.User, Password: s.Password, ConnectTimeout: 60 * time.Second}
}

// connect opens a connector client closed at the end of the test.
func connect(t testing.TB) (*connector.Client, server) {
	t.Helper()
	s := neo4jServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := connector.Connect(ctx, s.options())
	if err != nil {
		t.Fatalf("connect to %s: %v", s.URI, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, s
}

// rawDriver opens a plain driver, independent of the connector, for
// loading fixtures and checking what was written.
func rawDriver(t testing.TB, s server) neo4j.DriverWithContext {
	t.Helper()
	d, err := neo4j.NewDriverWithContext(s.URI, neo4j.BasicAuth(s.User, s.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]`)

// uniqueName returns an identifier unique to this test run, so tests
// sharing one server never see each other's data.
func uniqueName(t testing.TB, prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	name := nonIdent.ReplaceAllString(t.Name(), "_")
	if len(name) > 30 {
		name = name[len(name)-30:]
	}
	return fmt.Sprintf("%s_%s_%s", prefix, name, hex.EncodeToString(b[:]))
}

// query runs one auto-retried query with the raw driver and returns all
// records.
func query(t testing.TB, d neo4j.DriverWithContext, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := neo4j.ExecuteQuery(ctx, d, q, params, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j"))
	if err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	return res.Records
}

// fixture is a graph loaded into Neo4j under its own label and
// relationship type: nodes (:Label {key, community, obs}) and
// relationships (a)-[:Type {w}]->(b), direction random.
type fixture struct {
	Label, RelType string
	Keys           []int64   // node i's key property
	Community      []int64   // node i's community property
	Obs            []float64 // node i's observed value
	Rels           []rel     // every relationship loaded (self-loops and parallels included)
	ElementIDs     []string  // node i's elementId
	// Keep skips the deletion at the end of the test (a throwaway server).
	Keep bool
}

type rel struct {
	U, V int // node indices (direction as stored)
	W    float64
}

// sbmFixture samples an SBM (laplacian.SBM, independent of the
// connector), gives every edge a random weight in [0.5, 2) and every node a
// key, its block as community and a value, and adds the extras.
func sbmFixture(t testing.TB, sizes []int, pIn, pOut float64, seed uint64) *fixture {
	t.Helper()
	g, blocks, err := laplacian.SBM(sizes, pIn, pOut, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(seed, 7))
	n := g.N()
	f := &fixture{Keys: make([]int64, n), Community: make([]int64, n), Obs: make([]float64, n)}
	for i := 0; i < n; i++ {
		f.Keys[i] = int64(1000 + 3*i) // not the index, to catch index/key mix-ups
		f.Community[i] = int64(blocks[i])
		f.Obs[i] = rng.Float64()
	}
	g.ForEachEdge(func(i, j int, _ float64) {
		if rng.IntN(2) == 0 {
			i, j = j, i
		}
		f.Rels = append(f.Rels, rel{U: i, V: j, W: 0.5 + 1.5*rng.Float64()})
	})
	return f
}

// load creates the fixture's nodes and relationships with UNWIND
// parameters, under a new unique label/type, and deletes them when the test
// ends.
func (f *fixture) load(t testing.TB, d neo4j.DriverWithContext) {
	t.Helper()
	if f.Label == "" {
		f.Label = uniqueName(t, "N")
	}
	if f.RelType == "" {
		f.RelType = uniqueName(t, "R")
	}
	if !f.Keep {
		t.Cleanup(func() { dropLabel(t, d, f.Label) })
	}
	const batch = 20_000
	f.ElementIDs = make([]string, 0, len(f.Keys))
	for lo := 0; lo < len(f.Keys); lo += batch {
		hi := min(lo+batch, len(f.Keys))
		rows := make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			rows = append(rows, map[string]any{"k": f.Keys[i], "c": f.Community[i], "v": f.Obs[i], "i": int64(i)})
		}
		recs := query(t, d, "UNWIND $rows AS r CREATE (n:`"+f.Label+"` {key: r.k, community: r.c, obs: r.v}) RETURN r.i AS i, elementId(n) AS id ORDER BY i",
			map[string]any{"rows": rows})
		for _, rec := range recs {
			f.ElementIDs = append(f.ElementIDs, rec.Values[1].(string))
		}
	}
	if len(f.ElementIDs) != len(f.Keys) {
		t.Fatalf("loaded %d nodes, want %d", len(f.ElementIDs), len(f.Keys))
	}
	for lo := 0; lo < len(f.Rels); lo += batch {
		hi := min(lo+batch, len(f.Rels))
		rows := make([]any, 0, hi-lo)
		for _, r := range f.Rels[lo:hi] {
			rows = append(rows, map[string]any{"a": f.ElementIDs[r.U], "b": f.ElementIDs[r.V], "w": r.W})
		}
		query(t, d, "UNWIND $rows AS r MATCH (a) WHERE elementId(a) = r.a MATCH (b) WHERE elementId(b) = r.b "+
			"CREATE (a)-[:`"+f.RelType+"` {w: r.w}]->(b)", map[string]any{"rows": rows})
	}
}

// projection is the fixture's projection; withKey selects the key property.
func (f *fixture) projection(withKey bool) connector.Projection {
	p := connector.Projection{
		NodeLabels: []string{f.Label}, RelationshipTypes: []string{f.RelType},
		RelationshipWeightProperty: "w", CommunityProperty: "community", ValueProperty: "obs",
	}
	if withKey {
		p.NodeKeyProperty = "key"
	}
	return p
}

// expectedEdges is the undirected multigraph-merged edge set of the
// fixture: self-loops dropped, weights of parallel and opposite
// relationships added. Keys are node indices with u < v.
func (f *fixture) expectedEdges() map[[2]int]float64 {
	m := map[[2]int]float64{}
	for _, r := range f.Rels {
		if r.U == r.V {
			continue
		}
		u, v := min(r.U, r.V), max(r.U, r.V)
		m[[2]int{u, v}] += r.W
	}
	return m
}

// dropLabel deletes every node with one of labels (and its
// relationships), in batches, in an auto-commit transaction, then the
// constraints and indexes on each label (graphcloak load creates one for
// its key): the server lists a label as long as one stays, so a test that
// expects no such label would fail on the next run against the same
// server. The labels are parameters, so one call for many labels plans
// its queries once.
func dropLabel(t testing.TB, d neo4j.DriverWithContext, labels ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := d.NewSession(ctx, neo4j.SessionConfig{DatabaseName: "neo4j"})
	defer s.Close(ctx)
	run := func(q string, params map[string]any) ([]*neo4j.Record, error) {
		res, err := s.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	}
	p := map[string]any{"labels": labels}
	_, err := run("MATCH (n) WHERE any(l IN labels(n) WHERE l IN $labels) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS", p)
	for _, kind := range [][2]string{{"CONSTRAINT", "CONSTRAINTS"}, {"INDEX", "INDEXES"}} {
		if err != nil {
			break
		}
		var recs []*neo4j.Record
		recs, err = run("SHOW "+kind[1]+" YIELD name, labelsOrTypes, entityType "+
			"WHERE entityType = 'NODE' AND size(labelsOrTypes) = 1 AND labelsOrTypes[0] IN $labels RETURN name", p)
		for _, r := range recs {
			if err == nil {
				_, err = run("DROP "+kind[0]+" `"+strings.ReplaceAll(r.Values[0].(string), "`", "``")+"` IF EXISTS", nil)
			}
		}
	}
	if err != nil {
		t.Logf("cleanup of labels %q: %v", labels, err)
	}
}

// countFixture returns the number of the fixture's nodes and
// relationships, and of all nodes carrying any property key in keys (none
// should appear after a refused run). Counting only the fixture keeps the
// check independent of other tests sharing the server.
func (f *fixture) count(t testing.TB, d neo4j.DriverWithContext) (nodes, rels int64) {
	t.Helper()
	r := query(t, d, "CALL { MATCH (n:`"+f.Label+"`) RETURN count(n) AS n } "+
		"CALL { MATCH ()-[r:`"+f.RelType+"`]->() RETURN count(r) AS r } RETURN n, r", nil)
	return r[0].Values[0].(int64), r[0].Values[1].(int64)
}

// propertyKeys returns the property keys ever used in the database.
func propertyKeys(t testing.TB, d neo4j.DriverWithContext) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, r := range query(t, d, "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey", nil) {
		m[r.Values[0].(string)] = true
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

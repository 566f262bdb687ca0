package integration

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// readPaths are the two ways ReadGraph reads a projection: through
// graphcloak's plugin (the procedure graphcloak.read, which scripts/neo4j.sh
// installs in the test server) and with Cypher queries.
var readPaths = []struct {
	name string
	opt  connector.ReadOptions
}{
	{"procedure", connector.ReadOptions{}},
	{"cypher", connector.ReadOptions{Cypher: true}},
}

// checkReadPath fails the test when p was not read the way wanted. A
// server without the plugin (a user's NEO4J_URI) skips the procedure's
// tests, except under GRAPHCLOAK_NEO4J_PLUGIN=1: scripts/test.sh installed
// it (always in CI).
func checkReadPath(t *testing.T, p *connector.Pulled, want string) {
	t.Helper()
	if p.Stats.ReadPath == want {
		return
	}
	msg := "read by " + p.Stats.ReadPath + ", want " + want
	if want == "procedure" && os.Getenv("GRAPHCLOAK_NEO4J_PLUGIN") != "1" {
		t.Skip(msg + ": the server has no " + connector.ReadProcedure + " (install connector/neo4j-plugin: scripts/neo4j-plugin.sh)")
	}
	t.Fatal(msg)
}

// requirePlugin skips the test when the server has no ReadProcedure, or
// fails it under GRAPHCLOAK_NEO4J_PLUGIN=1 (scripts/test.sh installed it).
func requirePlugin(t *testing.T, d neo4j.DriverWithContext) {
	t.Helper()
	if len(query(t, d, "SHOW PROCEDURES YIELD name WHERE name = $n RETURN name", map[string]any{"n": connector.ReadProcedure})) > 0 {
		return
	}
	if os.Getenv("GRAPHCLOAK_NEO4J_PLUGIN") == "1" {
		t.Fatal("the server has no " + connector.ReadProcedure + " (GRAPHCLOAK_NEO4J_PLUGIN=1: scripts/test.sh installed it)")
	}
	t.Skip("the server has no " + connector.ReadProcedure + " (install connector/neo4j-plugin: scripts/neo4j-plugin.sh)")
}

// TestReadProcedureMatchesCypher reads one projection both ways and
// requires the same graph: the same nodes (by element id) with the same
// keys, values and communities, the same edges and weights, the same
// counts. The fixture has what makes a projection hard: nodes under two
// selected labels and under both, a node outside the projection tied to
// selected ones, a relationship type outside it, self-loops, parallel and
// opposite relationships, and a node without relationships.
func TestReadProcedureMatchesCypher(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{30, 30}, 0.3, 0.05, 5)
	f.Rels = append(f.Rels, rel{U: 2, V: 2, W: 1.5}, rel{U: 7, V: 7, W: 0.5},
		rel{U: f.Rels[0].U, V: f.Rels[0].V, W: 0.25}, rel{U: f.Rels[1].V, V: f.Rels[1].U, W: 0.75})
	f.load(t, d)
	other := uniqueName(t, "M")
	t.Cleanup(func() { dropLabel(t, d, other) })
	outside := uniqueName(t, "Out")
	t.Cleanup(func() { dropLabel(t, d, outside) })
	otherType := uniqueName(t, "S")
	// A third of the fixture's nodes also get the second label; five new
	// nodes have only that label, one of them isolated.
	query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.key % 3 = 0 SET n:`"+other+"`", nil)
	query(t, d, "UNWIND range(0, 4) AS i CREATE (:`"+other+"` {key: 5000 + i, community: 9, obs: 0.5})", nil)
	query(t, d, "MATCH (a:`"+other+"` {key: 5000}), (b:`"+f.Label+"` {key: 1000}) CREATE (a)-[:`"+f.RelType+"` {w: 2.0}]->(b)", nil)
	query(t, d, "MATCH (a:`"+other+"` {key: 5001}), (b:`"+other+"` {key: 5002}) CREATE (a)-[:`"+f.RelType+"` {w: 1.0}]->(b)", nil)
	// Outside the projection: a node of another label, a relationship of
	// another type.
	query(t, d, "MATCH (b:`"+f.Label+"`) WHERE b.key < 1030 CREATE (:`"+outside+"` {key: 1})-[:`"+f.RelType+"` {w: 1.0}]->(b)", nil)
	query(t, d, "MATCH (a:`"+f.Label+"` {key: 1003}), (b:`"+f.Label+"` {key: 1006}) CREATE (a)-[:`"+otherType+"` {w: 4.0}]->(b)", nil)

	pr := f.projection(true)
	pr.NodeLabels = []string{f.Label, other}
	t.Run("scan and traversal", func(t *testing.T) {
		// The plugin reads relationships by a store scan or by traversing
		// each selected node; both must stream the same relationships.
		requirePlugin(t, d)
		var got [2]map[[2]string]float64
		for k, scan := range []bool{true, false} {
			got[k] = map[[2]string]float64{}
			var ids []string
			for _, r := range query(t, d, "CALL graphcloak.read($labels, [], $types, [], 'w', {scan: $scan}) YIELD elementIds, edges RETURN elementIds, edges",
				map[string]any{"labels": []any{f.Label, other}, "types": []any{f.RelType}, "scan": scan}) {
				if list, ok := r.Values[0].([]any); ok {
					for _, id := range list {
						ids = append(ids, id.(string))
					}
					continue
				}
				b := r.Values[1].([]byte)
				for ; len(b) >= 16; b = b[16:] {
					u, v := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
					got[k][[2]string{ids[u], ids[v]}] += math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
				}
				if len(b) != 0 {
					t.Fatalf("scan=%v: %d bytes left over in an edge chunk", scan, len(b))
				}
			}
		}
		if len(got[0]) != len(got[1]) || len(got[0]) == 0 {
			t.Fatalf("%d directed pairs by the scan, %d by the traversal", len(got[0]), len(got[1]))
		}
		for e, w := range got[0] {
			if !closeTo(got[1][e], w, 1e-15*w) {
				t.Fatalf("relationship %v: weight %v by the scan, %v by the traversal", e, w, got[1][e])
			}
		}
	})
	for _, unweighted := range []bool{false, true} {
		p := pr
		name := "weighted"
		if unweighted {
			p.RelationshipWeightProperty, name = "", "unweighted"
		}
		t.Run(name, func(t *testing.T) {
			var got [2]*connector.Pulled
			for k, path := range readPaths {
				opt := path.opt
				opt.Duplicates = laplacian.DuplicatesSum // the fixture's parallel relationships add (weights that differ)
				g, err := c.ReadGraph(ctxT(t), p, opt)
				if err != nil {
					t.Fatalf("%s: %v", path.name, err)
				}
				checkReadPath(t, g, path.name)
				got[k] = g
			}
			a, b := got[0], got[1]
			if n := len(f.Keys) + 5; a.Graph.N() != n || b.Graph.N() != n {
				t.Fatalf("N = %d (procedure), %d (cypher), want %d", a.Graph.N(), b.Graph.N(), n)
			}
			sa, sb := a.Stats, b.Stats
			sa.ReadMillis, sb.ReadMillis, sa.ReadPath, sb.ReadPath = 0, 0, "", ""
			if sa != sb {
				t.Fatalf("stats differ:\nprocedure %+v\ncypher    %+v", sa, sb)
			}
			if sa.SelfLoopsSkipped != 2 || sa.RelationshipCount != len(f.Rels)+2 {
				t.Fatalf("stats %+v: want %d relationships, 2 self-loops", sa, len(f.Rels)+2)
			}
			at := map[string]int{}
			for i, id := range b.ElementIDs {
				at[id] = i
			}
			for i, id := range a.ElementIDs {
				j, ok := at[id]
				if !ok {
					t.Fatalf("node %s read by the procedure only", id)
				}
				if a.Graph.Key(i) != b.Graph.Key(j) || a.Values[i] != b.Values[j] || a.Communities[i] != b.Communities[j] {
					t.Fatalf("node %s: key %q value %v community %d (procedure), %q %v %d (cypher)", id,
						a.Graph.Key(i), a.Values[i], a.Communities[i], b.Graph.Key(j), b.Values[j], b.Communities[j])
				}
			}
			edges := func(p *connector.Pulled) map[[2]string]float64 {
				m := map[[2]string]float64{}
				p.Graph.ForEachEdge(func(i, j int, w float64) {
					u, v := p.ElementIDs[i], p.ElementIDs[j]
					m[[2]string{min(u, v), max(u, v)}] = w
				})
				return m
			}
			ea, eb := edges(a), edges(b)
			if len(ea) != len(eb) {
				t.Fatalf("%d edges (procedure), %d (cypher)", len(ea), len(eb))
			}
			for e, w := range eb {
				// Parallel weights may be added in another order: 1 ulp.
				if !closeTo(ea[e], w, 1e-15*w) {
					t.Fatalf("edge %v: weight %v (procedure), %v (cypher)", e, ea[e], w)
				}
			}
		})
	}
}

// TestReadProcedureDiagnosesLikeCypher checks that the plugin's read
// refuses bad data exactly as the Cypher read does: the same *DataError
// (property, reason, count, named examples) for a relationship without a
// weight, one whose weight is not a positive number, and nodes without a
// value.
func TestReadProcedureDiagnosesLikeCypher(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{12, 12}, 0.5, 0.1, 8)
	f.load(t, d)
	wprop, vprop := uniqueName(t, "w"), uniqueName(t, "v")
	query(t, d, "MATCH (:`"+f.Label+"`)-[r:`"+f.RelType+"`]->() SET r.`"+wprop+"` = r.w", nil)
	query(t, d, "MATCH (a:`"+f.Label+"` {key: $k})-[r:`"+f.RelType+"`]-() WITH r LIMIT 1 SET r.`"+wprop+"` = -1.0",
		map[string]any{"k": f.Keys[f.Rels[0].U]})
	query(t, d, "MATCH (a:`"+f.Label+"` {key: $k})-[r:`"+f.RelType+"`]-() WITH r LIMIT 1 REMOVE r.`"+wprop+"`",
		map[string]any{"k": f.Keys[f.Rels[5].V]})
	query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.key % 2 = 0 SET n.`"+vprop+"` = 1.0", nil)
	for _, tc := range []struct {
		name   string
		weight string
		value  string
	}{
		{"weights", wprop, "obs"},
		{"values", "w", vprop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := f.projection(true)
			pr.RelationshipWeightProperty, pr.ValueProperty = tc.weight, tc.value
			var errs [2]*connector.DataError
			for k, path := range readPaths {
				_, err := c.ReadGraph(ctxT(t), pr, path.opt)
				if !errors.As(err, &errs[k]) {
					t.Fatalf("%s: err = %v, want *DataError", path.name, err)
				}
			}
			if errs[0].Error() != errs[1].Error() {
				t.Fatalf("the reads disagree:\nprocedure %v\ncypher    %v", errs[0], errs[1])
			}
			t.Log(errs[0])
		})
	}
	// With good weights the procedure reads them (not a Cypher fallback).
	p, err := c.ReadGraph(ctxT(t), f.projection(true), connector.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkReadPath(t, p, "procedure")
	var total float64
	p.Graph.ForEachEdge(func(_, _ int, w float64) { total += w })
	var want float64
	for _, w := range f.expectedEdges() {
		want += w
	}
	if math.Abs(total-want) > 1e-9*want {
		t.Fatalf("total weight %v, want %v", total, want)
	}
}

// TestReadProcedureAbandoned starts a plugin read in small edge chunks,
// takes one chunk, and walks away (the transaction is rolled back while the
// scan's workers wait on a full queue): the server must end the read
// rather than keep it, and a read after it must work.
func TestReadProcedureAbandoned(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{100, 100}, 0.2, 0.02, 4)
	f.load(t, d)
	requirePlugin(t, d)
	ctx := ctxT(t)
	marker := uniqueName(t, "abandoned")
	sess := d.NewSession(ctx, neo4j.SessionConfig{FetchSize: 1})
	tx, err := sess.BeginTransaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 16 edges a chunk: over a hundred chunks, far more than the queue holds.
	res, err := tx.Run(ctx, "CALL graphcloak.read($labels, [], $types, [], 'w', {scan: true, concurrency: 2, edgesPerChunk: 16}) "+
		"YIELD elementIds, edges RETURN elementIds, edges, $marker AS marker",
		map[string]any{"labels": []any{f.Label}, "types": []any{f.RelType}, "marker": marker})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Next(ctx) {
		t.Fatalf("no first chunk: %v", res.Err())
	}
	time.Sleep(500 * time.Millisecond) // the workers fill the queue and wait
	if err := tx.Close(ctx); err != nil {
		t.Logf("rollback: %v", err)
	}
	sess.Close(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := query(t, d, "SHOW TRANSACTIONS YIELD currentQuery WHERE currentQuery CONTAINS $m RETURN currentQuery",
			map[string]any{"m": marker})
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the abandoned read still runs 10 s later: %v", left[0].Values[0])
		}
		time.Sleep(100 * time.Millisecond)
	}
	p, err := c.ReadGraph(ctx, f.projection(true), connector.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkReadPath(t, p, "procedure")
	if p.Graph.NumEdges() != len(f.expectedEdges()) {
		t.Fatalf("%d edges after the abandoned read, want %d", p.Graph.NumEdges(), len(f.expectedEdges()))
	}
}

// TestReadProcedureSandboxed starts a server on which graphcloak's plugin
// is installed but left out of dbms.security.procedures.unrestricted:
// Neo4j lists graphcloak.read yet refuses to run it. The read must fall
// back to Cypher, give the fixture's graph and say why (ReadNote), and
// `communities` must print the reason.
func TestReadProcedureSandboxed(t *testing.T) {
	// Its own server: it runs beside the other tests.
	t.Parallel()
	shared := neo4jServer(t) // skip/fail exactly like the other tests
	_ = shared
	if testing.Short() {
		t.Skip("starts its own Neo4j server; skipped with -short")
	}
	if os.Getenv("GRAPHCLOAK_NEO4J_PLUGIN") != "1" {
		t.Skip("needs graphcloak's plugin (scripts/test.sh builds and installs it)")
	}
	o := &ownServer{t: t, root: repoRoot(t), dir: filepath.Join(t.TempDir(), "neo4j"), pw: "graphcloak-sandbox-test",
		env: []string{"GRAPHCLOAK_NEO4J_UNRESTRICTED=gds.*"}}
	s := o.start()
	t.Cleanup(o.stop)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{20, 20}, 0.3, 0.05, 9)
	f.Keep = true // the server is thrown away
	f.load(t, d)
	requirePlugin(t, d) // listed, although it may not run
	ctx := ctxT(t)
	c, err := connector.Connect(ctx, s.options())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	p, err := c.ReadGraph(ctx, f.projection(true), connector.ReadOptions{})
	if err != nil {
		t.Fatalf("read on a server with the plugin sandboxed: %v", err)
	}
	if p.Stats.ReadPath != "cypher" || !strings.Contains(p.Stats.ReadNote, "sandboxed") ||
		!strings.Contains(p.Stats.ReadNote, "dbms.security.procedures.unrestricted") {
		t.Fatalf("read by %q with note %q: want cypher and a note naming the setting", p.Stats.ReadPath, p.Stats.ReadNote)
	}
	if p.Graph.NumEdges() != len(f.expectedEdges()) {
		t.Fatalf("%d edges, want %d", p.Graph.NumEdges(), len(f.expectedEdges()))
	}
	r := runCLI(t, s.Password, "communities", "--graph", "neo4j", "--uri", s.URI, "--user", s.User,
		"--node-labels", f.Label, "--relationship-types", f.RelType, "--node-key-property", "key", "--mode", "stream")
	if r.Code != 0 || !strings.Contains(r.Stderr, "by Cypher (graphcloak.read is installed but sandboxed") {
		t.Fatalf("communities: exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
}

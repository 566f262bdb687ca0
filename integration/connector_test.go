package integration

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
)

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestReadGraphRoundTrip loads an SBM with weights, a community property
// and observed values, reads it back through a projection and compares
// with the generated fixture (the oracle): same nodes, keys, values,
// communities, and the same undirected edges and weights.
func TestReadGraphRoundTrip(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{40, 30, 30}, 0.2, 0.02, 11)
	// Extras Neo4j graphs have: a self-loop, a parallel relationship and an
	// opposite one.
	f.Rels = append(f.Rels, rel{U: 3, V: 3, W: 1.5}, rel{U: f.Rels[0].U, V: f.Rels[0].V, W: 0.25},
		rel{U: f.Rels[1].V, V: f.Rels[1].U, W: 0.75})
	f.load(t, d)
	want := f.expectedEdges()

	for _, withKey := range []bool{false, true} {
		t.Run("key="+strconv.FormatBool(withKey), func(t *testing.T) {
			// Parallel relationships of other weights: the multigraph, by the rule's word.
			p, err := c.ReadGraph(ctxT(t), f.projection(withKey), connector.ReadOptions{Duplicates: laplacian.DuplicatesSum})
			if err != nil {
				t.Fatal(err)
			}
			g := p.Graph
			if g.N() != len(f.Keys) {
				t.Fatalf("N = %d, want %d", g.N(), len(f.Keys))
			}
			if p.Stats.RelationshipCount != len(f.Rels) || p.Stats.SelfLoopsSkipped != 1 || p.Stats.ParallelMerged != 2 {
				t.Errorf("stats %+v: want %d relationships, 1 self-loop, 2 merged", p.Stats, len(f.Rels))
			}
			// Map graph index → fixture index through the element ids.
			fix := map[string]int{}
			for i, id := range f.ElementIDs {
				fix[id] = i
			}
			toFix := make([]int, g.N())
			for i := 0; i < g.N(); i++ {
				fi, ok := fix[p.ElementIDs[i]]
				if !ok {
					t.Fatalf("node %d: unknown element id %s", i, p.ElementIDs[i])
				}
				toFix[i] = fi
				wantKey := f.ElementIDs[fi]
				if withKey {
					wantKey = strconv.FormatInt(f.Keys[fi], 10)
				}
				if g.Key(i) != wantKey {
					t.Fatalf("node %d key %q, want %q", i, g.Key(i), wantKey)
				}
				if p.Values[i] != f.Obs[fi] || p.Communities[i] != f.Community[fi] {
					t.Fatalf("node %d: value %v community %d, want %v %d", i, p.Values[i], p.Communities[i], f.Obs[fi], f.Community[fi])
				}
			}
			got := map[[2]int]float64{}
			g.ForEachEdge(func(i, j int, w float64) {
				u, v := toFix[i], toFix[j]
				got[[2]int{min(u, v), max(u, v)}] = w
			})
			if len(got) != len(want) || g.NumEdges() != len(want) {
				t.Fatalf("%d edges (NumEdges %d), want %d", len(got), g.NumEdges(), len(want))
			}
			for e, w := range want {
				if !closeTo(got[e], w, 1e-12) {
					t.Fatalf("edge %v weight %v, want %v", e, got[e], w)
				}
			}
		})
	}

	t.Run("unweighted", func(t *testing.T) {
		pr := f.projection(true)
		pr.RelationshipWeightProperty = ""
		mult := map[[2]int]float64{}
		for _, r := range f.Rels {
			if r.U != r.V {
				mult[[2]int{min(r.U, r.V), max(r.U, r.V)}]++
			}
		}
		var rels float64
		for _, m := range mult {
			rels += m
		}
		// Unweighted parallel and opposite relationships are one edge of
		// weight 1 by default; summed, each edge weighs the number of
		// relationships.
		for _, tc := range []struct {
			rule  laplacian.DuplicateRule
			total float64
		}{{laplacian.DuplicatesMerge, float64(len(mult))}, {laplacian.DuplicatesSum, rels}} {
			p, err := c.ReadGraph(ctxT(t), pr, connector.ReadOptions{Duplicates: tc.rule})
			if err != nil {
				t.Fatal(err)
			}
			var gotTotal float64
			p.Graph.ForEachEdge(func(_, _ int, w float64) { gotTotal += w })
			if p.Graph.NumEdges() != len(mult) || gotTotal != tc.total {
				t.Fatalf("unweighted, %v: %d edges total weight %v, want %d and %v", tc.rule, p.Graph.NumEdges(), gotTotal, len(mult), tc.total)
			}
		}
	})
}

func TestReadGraphErrors(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{10, 10}, 0.5, 0.1, 3)
	f.load(t, d)
	ctx := ctxT(t)

	t.Run("unknown label", func(t *testing.T) {
		pr := f.projection(false)
		pr.NodeLabels = []string{uniqueName(t, "Nope")}
		_, err := c.ReadGraph(ctx, pr, connector.ReadOptions{})
		var se *connector.SchemaError
		if !errors.As(err, &se) || se.What != "label" {
			t.Fatalf("err = %v, want *SchemaError for the label", err)
		}
	})
	t.Run("unknown relationship type", func(t *testing.T) {
		pr := f.projection(false)
		pr.RelationshipTypes = []string{uniqueName(t, "Nope")}
		_, err := c.ReadGraph(ctx, pr, connector.ReadOptions{})
		var se *connector.SchemaError
		if !errors.As(err, &se) || se.What != "relationship type" {
			t.Fatalf("err = %v, want *SchemaError for the type", err)
		}
	})
	t.Run("unknown property", func(t *testing.T) {
		pr := f.projection(false)
		pr.ValueProperty = uniqueName(t, "nope")
		_, err := c.ReadGraph(ctx, pr, connector.ReadOptions{})
		var se *connector.SchemaError
		if !errors.As(err, &se) || se.What != "property" {
			t.Fatalf("err = %v, want *SchemaError for the property", err)
		}
	})
	t.Run("property missing on some nodes", func(t *testing.T) {
		// "key" exists in the database but only 2 nodes get "partial".
		prop := uniqueName(t, "partial")
		query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.key IN [1000, 1003] SET n.`"+prop+"` = 1.0", nil)
		pr := f.projection(false)
		pr.ValueProperty = prop
		_, err := c.ReadGraph(ctx, pr, connector.ReadOptions{})
		var de *connector.DataError
		if !errors.As(err, &de) || de.Count != len(f.Keys)-2 || de.Property != prop {
			t.Fatalf("err = %v, want *DataError for %d nodes", err, len(f.Keys)-2)
		}
		p, err := c.ReadGraph(ctx, pr, connector.ReadOptions{AllowMissingValues: true})
		if err != nil {
			t.Fatal(err)
		}
		nan := 0
		for _, v := range p.Values {
			if math.IsNaN(v) {
				nan++
			}
		}
		if nan != len(f.Keys)-2 || p.Stats.MissingValues != nan {
			t.Fatalf("%d NaN values (stats %d), want %d", nan, p.Stats.MissingValues, len(f.Keys)-2)
		}
	})
	t.Run("non-numeric weight", func(t *testing.T) {
		prop := uniqueName(t, "wbad")
		query(t, d, "MATCH (:`"+f.Label+"`)-[r:`"+f.RelType+"`]->(:`"+f.Label+"`) SET r.`"+prop+"` = 1.0", nil)
		query(t, d, "MATCH (a:`"+f.Label+"` {key: $k})-[r:`"+f.RelType+"`]-() WITH r LIMIT 1 SET r.`"+prop+"` = 'heavy'",
			map[string]any{"k": f.Keys[f.Rels[0].U]})
		pr := f.projection(true)
		pr.RelationshipWeightProperty = prop
		_, err := c.ReadGraph(ctx, pr, connector.ReadOptions{})
		var de *connector.DataError
		if !errors.As(err, &de) || de.Count != 1 || len(de.Examples) != 1 {
			t.Fatalf("err = %v, want *DataError naming 1 relationship", err)
		}
		t.Log(err)
	})
	t.Run("duplicate keys", func(t *testing.T) {
		prop := uniqueName(t, "dupkey")
		query(t, d, "MATCH (n:`"+f.Label+"`) SET n.`"+prop+"` = n.key % 7", nil)
		pr := f.projection(false)
		pr.NodeKeyProperty = prop
		_, err := c.ReadGraph(ctx, pr, connector.ReadOptions{})
		var de *connector.DataError
		if !errors.As(err, &de) || de.Count != len(f.Keys)-7 {
			t.Fatalf("err = %v, want *DataError with %d duplicate keys", err, len(f.Keys)-7)
		}
	})
}

// TestWritePropertiesIdempotent writes values twice (elementId and key
// modes) and checks with an independent query that every node holds
// exactly what was written, and that the counts are GDS-style node
// property counts.
func TestWritePropertiesIdempotent(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{30, 25}, 0.3, 0.05, 5)
	f.load(t, d)
	ctx := ctxT(t)
	for _, withKey := range []bool{false, true} {
		t.Run("key="+strconv.FormatBool(withKey), func(t *testing.T) {
			pr := f.projection(withKey)
			prop := uniqueName(t, "released")
			rows := make([]connector.NodeProps, len(f.Keys))
			for i := range rows {
				key := f.ElementIDs[i]
				if withKey {
					key = strconv.FormatInt(f.Keys[i], 10)
				}
				rows[i] = connector.NodeProps{Key: key, Props: map[string]any{prop: float64(i) / 7, prop + "_c": int64(i % 3)}}
			}
			for run := 0; run < 2; run++ {
				// The second run writes 3 batches at a time.
				st, err := c.WriteProperties(ctx, pr, rows, connector.WriteOptions{BatchSize: 7, Concurrency: 1 + 2*run})
				if err != nil {
					t.Fatal(err)
				}
				wantBatches := (len(rows) + 6) / 7
				if st.NodesWritten != len(rows) || st.NodePropertiesWritten != 2*len(rows) || st.Batches != wantBatches {
					t.Fatalf("run %d: stats %+v, want %d nodes, %d properties, %d batches", run, st, len(rows), 2*len(rows), wantBatches)
				}
				recs := query(t, d, "MATCH (n:`"+f.Label+"`) RETURN n.key, n.`"+prop+"`, n.`"+prop+"_c`", nil)
				if len(recs) != len(rows) {
					t.Fatalf("%d nodes, want %d", len(recs), len(rows))
				}
				for _, r := range recs {
					k := r.Values[0].(int64)
					i := int((k - 1000) / 3)
					if r.Values[1] != float64(i)/7 || r.Values[2] != int64(i%3) {
						t.Fatalf("node key %d: %v %v, want %v %v", k, r.Values[1], r.Values[2], float64(i)/7, i%3)
					}
				}
			}
		})
	}
	t.Run("unknown key writes nothing", func(t *testing.T) {
		prop := uniqueName(t, "never")
		rows := []connector.NodeProps{{Key: "1000", Props: map[string]any{prop: 1.0}}, {Key: "999999", Props: map[string]any{prop: 2.0}}}
		_, err := c.WriteProperties(ctx, f.projection(true), rows, connector.WriteOptions{})
		var de *connector.DataError
		if !errors.As(err, &de) || de.Count != 1 {
			t.Fatalf("err = %v, want *DataError for 1 unknown key", err)
		}
		if propertyKeys(t, d)[prop] {
			t.Fatalf("property %s was written", prop)
		}
	})
	t.Run("NaN refused", func(t *testing.T) {
		prop := uniqueName(t, "nan")
		rows := []connector.NodeProps{{Key: f.ElementIDs[0], Props: map[string]any{prop: math.NaN()}}}
		_, err := c.WriteProperties(ctx, f.projection(false), rows, connector.WriteOptions{})
		var de *connector.DataError
		if !errors.As(err, &de) || propertyKeys(t, d)[prop] {
			t.Fatalf("err = %v, want *DataError and nothing written", err)
		}
	})
}

// injectionNames are label/type/property names that would change a query
// if they reached its text unvalidated.
var injectionNames = []string{
	"A`) DETACH DELETE n //",
	"A` {x:1}) WITH n MATCH (m) DETACH DELETE m //",
	`A\u0060) DETACH DELETE n //`,
	"A\\u0060",
	"A\u0060", // a real backtick, written as a Go escape
	"A`",
	"",
	"A\x00",
	"A\u200b", // a zero-width space hides what a name is
}

// quotedNames are names Neo4j accepts in backticks; graphcloak accepts them
// too and always quotes them, so they cannot change a query: used as a
// label or type they name one the database does not have.
var quotedNames = []string{"A:B", "A B", "1abc", "Ä", "Raum_ü", "A'", "A\"", "A;MATCH (m) DETACH DELETE m //"}

// TestInjectionRefused puts hostile names in every identifier slot and
// checks that each is refused with *IdentifierError before any query:
// the database's node and relationship counts and property keys are
// unchanged.
func TestInjectionRefused(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{8, 8}, 0.5, 0.2, 9)
	f.load(t, d)
	ctx := ctxT(t)
	nodes0, rels0 := f.count(t, d)
	keys0 := propertyKeys(t, d)
	for _, evil := range injectionNames {
		slots := map[string]func(p *connector.Projection){
			"nodeLabels":                 func(p *connector.Projection) { p.NodeLabels = []string{f.Label, evil} },
			"relationshipTypes":          func(p *connector.Projection) { p.RelationshipTypes = []string{evil} },
			"relationshipWeightProperty": func(p *connector.Projection) { p.RelationshipWeightProperty = evil },
			"nodeKeyProperty":            func(p *connector.Projection) { p.NodeKeyProperty = evil },
			"communityProperty":          func(p *connector.Projection) { p.CommunityProperty = evil },
			"valueProperty":              func(p *connector.Projection) { p.ValueProperty = evil },
		}
		for slot, set := range slots {
			pr := f.projection(false)
			set(&pr)
			if evil == "" && (slot != "nodeLabels" && slot != "relationshipTypes") {
				continue // an empty property name means "not used"
			}
			var ie *connector.IdentifierError
			if err := pr.Validate(); !errors.As(err, &ie) {
				t.Errorf("%s=%q: Validate err = %v, want *IdentifierError", slot, evil, err)
			}
			if _, err := c.ReadGraph(ctx, pr, connector.ReadOptions{}); !errors.As(err, &ie) {
				t.Errorf("%s=%q: ReadGraph err = %v, want *IdentifierError", slot, evil, err)
			}
			if _, err := c.WriteProperties(ctx, pr, []connector.NodeProps{{Key: f.ElementIDs[0], Props: map[string]any{"ok": 1.0}}},
				connector.WriteOptions{}); !errors.As(err, &ie) {
				t.Errorf("%s=%q: WriteProperties err = %v, want *IdentifierError", slot, evil, err)
			}
		}
		// As a written property name.
		var ie *connector.IdentifierError
		if _, err := c.WriteProperties(ctx, f.projection(false), []connector.NodeProps{{Key: f.ElementIDs[0], Props: map[string]any{evil: 1.0}}},
			connector.WriteOptions{}); !errors.As(err, &ie) {
			t.Errorf("write property %q: err = %v, want *IdentifierError", evil, err)
		}
	}
	for _, name := range quotedNames {
		for slot, set := range map[string]func(p *connector.Projection){
			"nodeLabels":        func(p *connector.Projection) { p.NodeLabels = []string{f.Label, name} },
			"relationshipTypes": func(p *connector.Projection) { p.RelationshipTypes = []string{name} },
		} {
			pr := f.projection(false)
			set(&pr)
			if err := pr.Validate(); err != nil {
				t.Errorf("%s=%q: Validate err = %v, want nil (a name Neo4j accepts in backticks)", slot, name, err)
			}
			var se *connector.SchemaError
			if _, err := c.ReadGraph(ctx, pr, connector.ReadOptions{}); !errors.As(err, &se) {
				t.Errorf("%s=%q: ReadGraph err = %v, want *SchemaError (no such %s)", slot, name, err, slot)
			}
		}
	}
	nodes1, rels1 := f.count(t, d)
	if nodes1 != nodes0 || rels1 != rels0 {
		t.Fatalf("database changed: %d nodes %d rels → %d nodes %d rels", nodes0, rels0, nodes1, rels1)
	}
	for k := range propertyKeys(t, d) {
		if !keys0[k] && k != "ok" {
			t.Errorf("new property key %q appeared", k)
		}
	}
	if propertyKeys(t, d)["ok"] && !keys0["ok"] {
		t.Errorf("property ok was written although the projection was refused")
	}
}

func TestConnectErrors(t *testing.T) {
	s := neo4jServer(t)
	ctx := ctxT(t)
	t.Run("wrong password", func(t *testing.T) {
		o := s.options()
		o.Password = "definitely-not-" + s.Password
		c, err := connector.Connect(ctx, o)
		var ae *connector.AuthError
		if !errors.As(err, &ae) {
			if c != nil {
				c.Close(ctx)
			}
			t.Fatalf("err = %v, want *AuthError", err)
		}
		if containsSecret(err.Error(), o.Password) || containsSecret(err.Error(), s.Password) {
			t.Fatalf("error %q contains the password", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		o := s.options()
		o.URI = "bolt://127.0.0.1:1"
		o.ConnectTimeout = 5 * time.Second
		_, err := connector.Connect(ctx, o)
		var ue *connector.UnreachableError
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v, want *UnreachableError", err)
		}
	})
	t.Run("neo4j scheme", func(t *testing.T) {
		o := s.options()
		o.URI = "neo4j" + s.URI[len("bolt"):]
		c, err := connector.Connect(ctx, o)
		if err != nil {
			t.Fatalf("neo4j:// against a single server: %v", err)
		}
		c.Close(ctx)
	})
}

func containsSecret(s, secret string) bool {
	return secret != "" && strings.Contains(s, secret)
}

// TestRunRecord writes a run record as running, then succeeded, and reads
// it back with an independent query.
func TestRunRecord(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	ctx := ctxT(t)
	id := uniqueName(t, "run")
	t.Cleanup(func() { query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) DELETE r", map[string]any{"id": id}) })
	rec := connector.RunRecord{RunID: id, Command: "release", Status: connector.StatusRunning,
		Projection: connector.Projection{NodeLabels: []string{"A"}, ValueProperty: "obs"},
		Parameters: map[string]any{"tau": 0.5}, Sigma: 1.25, Delta2: 0.5, Rho: 0.08, Epsilon: 1, Delta: 1e-5,
		StartedAt: time.Now()}
	if err := c.WriteRunRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Status, rec.NodePropertiesWritten, rec.ComputeMillis, rec.WriteMillis = connector.StatusSucceeded, 42, 7, 3
	rec.FinishedAt = time.Now()
	if err := c.WriteRunRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got := query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) RETURN r.status AS s, r.nodePropertiesWritten AS n, r.sigma AS sigma, r.parameters AS p, r.finishedAt IS NOT NULL AS fin",
		map[string]any{"id": id})
	if len(got) != 1 {
		t.Fatalf("%d run records, want 1", len(got))
	}
	v := got[0].Values
	if v[0] != "succeeded" || v[1] != int64(42) || v[2] != 1.25 || v[3] != `{"tau":0.5}` || v[4] != true {
		t.Fatalf("run record %v", v)
	}
	if err := c.WriteRunRecord(ctx, connector.RunRecord{RunID: id, Status: "done"}); err == nil {
		t.Fatal("status done accepted")
	}
}

// TestReadGraphAllNodes reads with no node labels (every node): the
// fixture's relationships are all there, and graphcloak's own run record
// and ledger nodes are never part of the graph.
func TestReadGraphAllNodes(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{10, 10}, 0.5, 0.1, 21)
	f.load(t, d)
	ctx := ctxT(t)
	id := uniqueName(t, "run")
	if err := c.WriteRunRecord(ctx, connector.RunRecord{RunID: id, Status: connector.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) DELETE r", map[string]any{"id": id}) })
	// Every bookkeeping label (issue 33: a scope lease was read as a node).
	for _, l := range connector.BookkeepingLabels {
		query(t, d, "CREATE (:`"+l+"` {bookkeepingTest: $id})", map[string]any{"id": id})
	}
	t.Cleanup(func() { query(t, d, "MATCH (n {bookkeepingTest: $id}) DELETE n", map[string]any{"id": id}) })
	p, err := c.ReadGraph(ctx, connector.Projection{RelationshipTypes: []string{f.RelType}, RelationshipWeightProperty: "w"},
		connector.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Graph.N() < len(f.Keys) || p.Graph.NumEdges() != len(f.expectedEdges()) {
		t.Fatalf("%d nodes %d edges, want ≥ %d nodes and %d edges", p.Graph.N(), p.Graph.NumEdges(), len(f.Keys), len(f.expectedEdges()))
	}
	r := query(t, d, "MATCH (n) WHERE elementId(n) IN $ids AND any(l IN labels(n) WHERE l STARTS WITH 'Graphcloak') RETURN count(n)",
		map[string]any{"ids": p.ElementIDs})
	if r[0].Values[0] != int64(0) {
		t.Fatalf("%v graphcloak bookkeeping nodes were read as graph nodes", r[0].Values[0])
	}
}

// TestTransactionTimeout checks that Options.TransactionTimeout reaches
// the server: a pass over a graph that cannot finish in 1 ms fails with a
// *QueryError instead of completing.
func TestTransactionTimeout(t *testing.T) {
	_, s := connect(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{3000, 3000}, 0.01, 0.001, 4)
	f.load(t, d)
	o := s.options()
	o.TransactionTimeout = time.Millisecond
	c, err := connector.Connect(ctxT(t), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	_, err = c.ReadGraph(ctxT(t), f.projection(true), connector.ReadOptions{})
	var te *connector.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want *TimeoutError (transaction timed out)", err)
	}
	t.Log(err)
}

// TestStartRunEpochPublished: a release run of a (scope, epoch) that an
// ended run already published is refused at the claim itself, without a
// record — the gap a concurrent retry used to slip through between its
// FindRelease and its StartRun — while a charged epoch that never stored
// values, and another epoch, can still start. FindRelease prefers the
// published run over a newer one that failed.
func TestStartRunEpochPublished(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	ctx := ctxT(t)
	scope := uniqueName(t, "scope")
	t.Cleanup(func() {
		query(t, d, "MATCH (n) WHERE (n:GraphcloakRun OR n:GraphcloakScopeLease) AND n.scope = $s DELETE n", map[string]any{"s": scope})
	})
	start := func(id, epoch string) (*connector.Run, error) {
		return c.StartRun(ctx, connector.RunRecord{RunID: scope + "-" + id, Command: "release", Scope: scope, Epoch: epoch}, time.Minute)
	}
	a, err := start("a", "e1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := start("b", "e1"); !errors.As(err, new(*connector.ScopeBusyError)) {
		t.Fatalf("a second run while the first holds the scope: %v, want *ScopeBusyError", err)
	}
	if err := a.Succeed(ctx); err != nil {
		t.Fatal(err)
	}
	var pub *connector.EpochPublishedError
	if _, err := start("b", "e1"); !errors.As(err, &pub) || pub.RunID != a.ID() || pub.Epoch != "e1" {
		t.Fatalf("a run of the published epoch: %v, want *EpochPublishedError naming %s", err, a.ID())
	}
	if r := query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) RETURN count(r)", map[string]any{"id": scope + "-b"}); r[0].Values[0] != int64(0) {
		t.Fatal("the refused run left a record")
	}
	f, err := start("f", "e2")
	if err != nil {
		t.Fatalf("another epoch of the free scope: %v", err)
	}
	if err := f.Fail(ctx, errors.New("crashed before storing its values")); err != nil {
		t.Fatal(err)
	}
	g, err := start("g", "e2")
	if err != nil {
		t.Fatalf("an epoch whose only run stored no values: %v", err)
	}
	if err := g.Succeed(ctx); err != nil {
		t.Fatal(err)
	}
	newer := connector.RunRecord{RunID: scope + "-h", Command: "release", Scope: scope, Epoch: "e1",
		Status: connector.StatusFailed, StartedAt: time.Now().Add(time.Hour)}
	if err := c.WriteRunRecord(ctx, newer); err != nil {
		t.Fatal(err)
	}
	for epoch, want := range map[string]string{"e1": a.ID(), "e2": g.ID()} {
		if prev, err := c.FindRelease(ctx, "", scope, epoch); err != nil || prev == nil || prev.RunID != want {
			t.Errorf("FindRelease(%s) = %+v, %v; want the published run %s", epoch, prev, err, want)
		}
	}
}

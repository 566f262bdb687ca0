package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestSelfLoopsOneRule (issue 77, item 6): one graph with self-loops —
// karate, loops on nodes 1 and 34 and on node 35, which has no other
// relationship — read from an edge list and from Neo4j (both read paths)
// is one graph: the same nodes (35, the loop-only node kept), the same
// Laplacian (key-order fingerprint, and entry by entry), 3 loops counted
// by both, said on stderr and in sensitivity's JSON with the same Δ2 and
// certificate. load of the edge list (refused on main: exit 3) stores no
// loop but node 35, and counts the 3; export of the database writes the
// file the edge list without loops exports.
func TestSelfLoopsOneRule(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	pairs, rows := karateEdges()
	label, typ := storeMembers(t, d, 35, append([]any{[]any{1, 1}, []any{34, 34}, []any{35, 35}}, pairs...), false)
	dir := t.TempDir()
	plainCSV := writeTemp(t, dir, "plain.csv", "source,target\n"+rows+"35,\n")
	loopsCSV := writeTemp(t, dir, "loops.csv", "source,target\n1,1\n"+rows+"34,34\n35,35\n")
	fromFile, err := laplacian.LoadCSV(loopsCSV, laplacian.Options{})
	if err != nil {
		t.Fatalf("the edge list with loops: %v", err)
	}
	wantL, wantFP := keyOrderLaplacian(t, fromFile)
	pr := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{typ}, NodeKeyProperty: "key"}
	for _, path := range readPaths {
		t.Run(path.name, func(t *testing.T) {
			p, err := c.ReadGraph(ctxT(t), pr, path.opt)
			if err != nil {
				t.Fatal(err)
			}
			gotL, gotFP := keyOrderLaplacian(t, p.Graph)
			if gotFP != wantFP || gotL != wantL {
				t.Errorf("Neo4j: fingerprint %v, the edge list's %v (Laplacians equal: %v)", gotFP, wantFP, gotL == wantL)
			}
			if m := p.Graph.Merges(); m.SelfLoops != 3 || p.Stats.SelfLoopsSkipped != 3 || fromFile.Merges().SelfLoops != 3 || p.Stats.RelationshipCount != 81 {
				t.Errorf("self-loops: Neo4j %d (stats %d of %d relationships), edge list %d; want 3 of 81", m.SelfLoops,
					p.Stats.SelfLoopsSkipped, p.Stats.RelationshipCount, fromFile.Merges().SelfLoops)
			}
		})
	}

	// Through the binary: the same count, Δ2 and certificate from either.
	conn := connArgs(s)
	db := append([]string{"--graph", "neo4j", "--node-labels", label, "--relationship-types", typ, "--node-key-property", "key"}, conn...)
	type report struct {
		Delta2    float64 `json:"delta2"`
		Nodes     int     `json:"nodeCount"`
		SelfLoops int     `json:"selfLoopsSkipped"`
	}
	var file, fromDB report
	fileCert, fileErr := sensitivityCert(t, s, dir, "file", &file, "--graph", "file:"+loopsCSV)
	dbCert, dbErr := sensitivityCert(t, s, dir, "neo4j", &fromDB, db...)
	if fromDB.SelfLoops != 3 || file.SelfLoops != 3 || fromDB.Nodes != 35 || file.Nodes != 35 {
		t.Errorf("selfLoopsSkipped: Neo4j %d, edge list %d; nodes %d, %d: want 3, 3; 35, 35", fromDB.SelfLoops, file.SelfLoops, fromDB.Nodes, file.Nodes)
	}
	if d := fromDB.Delta2 - file.Delta2; d > 1e-12 || d < -1e-12 || dbCert != fileCert {
		t.Errorf("Neo4j: Δ2 %v, certificate %s; the edge list %v, %s", fromDB.Delta2, dbCert, file.Delta2, fileCert)
	}
	for _, e := range []string{fileErr, dbErr} {
		if !strings.Contains(e, "3 self-loops skipped, e.g. (") {
			t.Errorf("stderr does not say the loops: %q", e)
		}
	}

	// load stores the graph without its loops, node 35 included.
	label2 := uniqueName(t, "Member")
	t.Cleanup(func() { dropLabel(t, d, label2) })
	r := runCLI(t, s.Password, append([]string{"load", "--edges", loopsCSV, "--node-labels", label2, "--relationship-types", typ,
		"--node-key-property", "key", "-o", "json"}, conn...)...)
	var loaded struct {
		Nodes     int `json:"nodeCount"`
		Rels      int `json:"relationshipCount"`
		SelfLoops int `json:"selfLoopsSkipped"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &loaded) != nil || loaded != (struct {
		Nodes     int `json:"nodeCount"`
		Rels      int `json:"relationshipCount"`
		SelfLoops int `json:"selfLoopsSkipped"`
	}{35, 78, 3}) || !strings.Contains(r.Stderr, "3 self-loops skipped, e.g. (1, 1)") {
		t.Fatalf("load: exit %d, %+v (want 35 nodes, 78 relationships, 3 loops), stdout %s, stderr %s", r.Code, loaded, r.Stdout, r.Stderr)
	}
	if n := query(t, d, "MATCH (a:`"+label2+"`)-[:`"+typ+"`]->(a) RETURN count(*)", nil)[0].Values[0]; n != int64(0) {
		t.Errorf("load stored %v self-loops", n)
	}

	// export of the database (loops stored) is the edge list without them.
	export := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		if r := runCLI(t, s.Password, append([]string{"export", "--out", out}, args...)...); r.Code != 0 {
			t.Fatalf("export %s: exit %d: %s", name, r.Code, r.Stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := export("db.csv", db...), export("plain.out.csv", "--graph", "file:"+plainCSV); got != want {
		t.Errorf("export of Neo4j:\n%s\nthe edge list without loops:\n%s", got, want)
	}
}

// keyOrderLaplacian is g's Laplacian in key order, printed entry by entry,
// and its key-order fingerprint.
func keyOrderLaplacian(t *testing.T, g *laplacian.Graph) (string, laplacian.Fingerprint) {
	t.Helper()
	sg, _, err := laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	L := sg.Laplacian().Dense()
	var b strings.Builder
	for i := range sg.N() {
		fmt.Fprintf(&b, "%s:", sg.Key(i))
		for j := range sg.N() {
			fmt.Fprintf(&b, " %g", L.At(i, j))
		}
		b.WriteByte('\n')
	}
	return b.String(), sg.Fingerprint()
}

// TestGDSLeavesSelfLoopsOut: the projection --communities gds:… makes
// leaves self-loops out as ReadGraph does. Two triangles joined by a
// bridge, each node with a loop of weight 100: with the loops projected
// (main), Louvain's modularity keeps every node alone (a merge gains 1 and
// costs k_i·k_j/2m ≈ 33); without them it finds the two triangles — the
// communities of the graph every other reader builds.
func TestGDSLeavesSelfLoopsOut(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	label, typ := uniqueName(t, "Room"), uniqueName(t, "DOOR")
	t.Cleanup(func() { dropLabel(t, d, label) })
	query(t, d, "UNWIND range(1, 6) AS k CREATE (n:`"+label+"` {key: k}) CREATE (n)-[:`"+typ+"` {w: 100.0}]->(n)", nil)
	query(t, d, "UNWIND [[1,2],[2,3],[3,1],[4,5],[5,6],[6,4],[3,4]] AS p MATCH (a:`"+label+"` {key: p[0]}), (b:`"+label+"` {key: p[1]}) "+
		"CREATE (a)-[:`"+typ+"` {w: 1.0}]->(b)", nil)
	pr := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{typ}, NodeKeyProperty: "key", RelationshipWeightProperty: "w"}
	for _, algo := range []string{"louvain", "leiden"} {
		ids, err := c.GDSCommunities(ctxT(t), "neo4j", pr, algo, connector.GDSOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 6 || ids["1"] != ids["2"] || ids["2"] != ids["3"] || ids["4"] != ids["5"] || ids["5"] != ids["6"] || ids["1"] == ids["4"] {
			t.Errorf("gds:%s: communities %v, want the two triangles {1,2,3} {4,5,6}", algo, ids)
		}
	}
}

package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestNeo4jBothWaysIsTheGraphOnce (issue 70, deliver 1): karate's 78
// friendships stored in Neo4j in both directions, as Cypher's
// CREATE (a)-[:R]->(b), (b)-[:R]->(a) makes them (156 relationships), are
// karate: the projection read by either path (the plugin, Cypher) has 78
// edges of weight 1 and karate's key-order fingerprint; sensitivity on it
// gives the Δ2 of the edge list written once (0.3564 at τ = 1; summing
// gave 0.1375) and says it merged 78 pairs; a certificate names one
// fingerprint whichever way the graph was written; --duplicate-edges sum
// reads the multigraph. load of the edge list written both ways stores
// one relationship per pair and counts the 78 merged rows.
func TestNeo4jBothWaysIsTheGraphOnce(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	pairs, rows := karateEdges()
	label, typ := storeMembers(t, d, 34, pairs, true)
	if n := query(t, d, "MATCH (:`"+label+"`)-[r:`"+typ+"`]->() RETURN count(r)", nil)[0].Values[0]; n != int64(156) {
		t.Fatalf("stored %v relationships, want 156", n)
	}
	karate, _ := laplacian.Karate()
	_, want := keyOrderLaplacian(t, karate)
	pr := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{typ}, NodeKeyProperty: "key"}
	for _, path := range readPaths {
		t.Run(path.name, func(t *testing.T) {
			p, err := c.ReadGraph(ctxT(t), pr, path.opt)
			if err != nil {
				t.Fatal(err)
			}
			g := p.Graph
			if g.NumEdges() != 78 || !g.Unweighted() || p.Stats.ParallelMerged != 78 {
				t.Errorf("%d edges (unweighted %v), %d merged; want 78 unweighted, 78 merged", g.NumEdges(), g.Unweighted(), p.Stats.ParallelMerged)
			}
			if m := g.Merges(); m != (laplacian.Merges{Rows: 156, Pairs: 78, Merged: 78, Rule: "merge"}) {
				t.Errorf("merges %+v", m)
			}
			if _, got := keyOrderLaplacian(t, g); got != want {
				t.Errorf("fingerprint %v, want karate's %v", got, want)
			}
		})
	}

	// Through the binary: Δ2 and the certificate's fingerprint, from the
	// database and from the file written once.
	dir := t.TempDir()
	var both strings.Builder
	both.WriteString("source,target\n")
	for _, p := range pairs {
		ab := p.([]any)
		fmt.Fprintf(&both, "%d,%d\n%d,%d\n", ab[0], ab[1], ab[1], ab[0])
	}
	onceCSV, bothCSV := writeTemp(t, dir, "once.csv", "source,target\n"+rows), writeTemp(t, dir, "both.csv", both.String())
	conn := connArgs(s)
	db := append([]string{"--graph", "neo4j", "--node-labels", label, "--relationship-types", typ, "--node-key-property", "key"}, conn...)
	type report struct {
		Delta2         float64           `json:"delta2"`
		DuplicateEdges *laplacian.Merges `json:"duplicateEdges"`
	}
	sensitivity := func(name string, args ...string) (report, laplacian.Fingerprint, string) {
		t.Helper()
		var rep report
		fp, stderr := sensitivityCert(t, s, dir, name, &rep, args...)
		return rep, fp, stderr
	}
	file, fileCert, _ := sensitivity("file", "--graph", "file:"+onceCSV)
	fromDB, dbCert, stderr := sensitivity("neo4j", db...)
	// The same graph in another node order: the same Δ2 up to rounding
	// (far inside its certified slack, ~1e-12).
	same := func(a, b float64) bool { return a-b <= 1e-12*b && b-a <= 1e-12*b }
	if !same(fromDB.Delta2, file.Delta2) {
		t.Errorf("Neo4j both ways: Δ2 %v, the edge list written once %v", fromDB.Delta2, file.Delta2)
	}
	if dbCert != fileCert {
		t.Errorf("certificates name two graphs: Neo4j %v, file %v", dbCert, fileCert)
	}
	if note := "156 rows, 78 pairs listed twice merged as one edge each: 78 edges (--duplicate-edges merge)"; !strings.Contains(stderr, note) ||
		fromDB.DuplicateEdges == nil || fromDB.DuplicateEdges.Merged != 78 {
		t.Errorf("the merge is not said: stderr %q, duplicateEdges %+v", stderr, fromDB.DuplicateEdges)
	}
	sum, _, _ := sensitivity("neo4j-sum", append(db, "--duplicate-edges", "sum")...)
	at2tau, _, _ := sensitivity("file-2tau", "--graph", "file:"+onceCSV, "--tau", "2")
	if d := sum.Delta2 - at2tau.Delta2; d > 1e-12 || d < -1e-12 {
		t.Errorf("--duplicate-edges sum: Δ2 %v, want the multigraph's (karate at 2τ) %v", sum.Delta2, at2tau.Delta2)
	}

	// load: the edge list written both ways is one relationship per pair.
	label2, typ2 := uniqueName(t, "Member"), uniqueName(t, "FRIEND")
	t.Cleanup(func() { dropLabel(t, d, label2) })
	r := runCLI(t, s.Password, append([]string{"load", "--edges", bothCSV, "--node-labels", label2, "--relationship-types", typ2,
		"--node-key-property", "key", "-o", "json"}, conn...)...)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"duplicateRowsMerged": 78`) {
		t.Fatalf("load both ways: exit %d, stdout %s, stderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if n := query(t, d, "MATCH (:`"+label2+"`)-[r:`"+typ2+"`]->() RETURN count(r)", nil)[0].Values[0]; n != int64(78) {
		t.Errorf("load both ways stored %v relationships, want 78", n)
	}
	loaded, loadedCert, _ := sensitivity("loaded", append([]string{"--graph", "neo4j", "--node-labels", label2, "--relationship-types", typ2,
		"--node-key-property", "key"}, conn...)...)
	if !same(loaded.Delta2, file.Delta2) || loadedCert != fileCert || loaded.DuplicateEdges != nil {
		t.Errorf("loaded graph: Δ2 %v, %v, merges %+v; want the file's %v, %v, none", loaded.Delta2, loadedCert, loaded.DuplicateEdges, file.Delta2, fileCert)
	}
}

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	label, typ := uniqueName(t, "Member"), uniqueName(t, "FRIEND")
	t.Cleanup(func() { dropLabel(t, d, label) })
	karate, _ := laplacian.Karate()
	var pairs []any
	var once, both strings.Builder
	once.WriteString("source,target\n")
	both.WriteString("source,target\n")
	karate.ForEachEdge(func(i, j int, _ float64) {
		a, _ := strconv.Atoi(karate.Key(i))
		b, _ := strconv.Atoi(karate.Key(j))
		pairs = append(pairs, []any{a, b})
		fmt.Fprintf(&once, "%d,%d\n", a, b)
		fmt.Fprintf(&both, "%d,%d\n%d,%d\n", a, b, b, a)
	})
	query(t, d, "UNWIND range(1, 34) AS k CREATE (:`"+label+"` {key: k})", nil)
	query(t, d, "UNWIND $pairs AS p MATCH (a:`"+label+"` {key: p[0]}), (b:`"+label+"` {key: p[1]}) "+
		"CREATE (a)-[:`"+typ+"`]->(b), (b)-[:`"+typ+"`]->(a)", map[string]any{"pairs": pairs})
	if n := query(t, d, "MATCH (:`"+label+"`)-[r:`"+typ+"`]->() RETURN count(r)", nil)[0].Values[0]; n != int64(156) {
		t.Fatalf("stored %v relationships, want 156", n)
	}
	keyOrder := func(g *laplacian.Graph) laplacian.Fingerprint {
		sg, _, err := laplacian.SortedByKey(g)
		if err != nil {
			t.Fatal(err)
		}
		return sg.Fingerprint()
	}
	want := keyOrder(karate)
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
			if got := keyOrder(g); got != want {
				t.Errorf("fingerprint %v, want karate's %v", got, want)
			}
		})
	}

	// Through the binary: Δ2 and the certificate's fingerprint, from the
	// database and from the file written once.
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onceCSV, bothCSV := write("once.csv", once.String()), write("both.csv", both.String())
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j"}
	db := append([]string{"--graph", "neo4j", "--node-labels", label, "--relationship-types", typ, "--node-key-property", "key"}, conn...)
	type report struct {
		Delta2         float64           `json:"delta2"`
		DuplicateEdges *laplacian.Merges `json:"duplicateEdges"`
	}
	type cert struct {
		Graph laplacian.Fingerprint `json:"graph"`
	}
	sensitivity := func(name string, args ...string) (report, cert, string) {
		t.Helper()
		save := filepath.Join(dir, name+".cert.json")
		r := runCLI(t, s.Password, append([]string{"sensitivity", "--tau", "1", "--save", save, "-o", "json"}, args...)...)
		if r.Code != 0 {
			t.Fatalf("sensitivity %s: exit %d: %s", name, r.Code, r.Stderr)
		}
		var rep report
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("sensitivity %s: %v\n%s", name, err, r.Stdout)
		}
		b, err := os.ReadFile(save)
		if err != nil {
			t.Fatal(err)
		}
		var c cert
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("certificate %s: %v", name, err)
		}
		return rep, c, r.Stderr
	}
	file, fileCert, _ := sensitivity("file", "--graph", "file:"+onceCSV)
	fromDB, dbCert, stderr := sensitivity("neo4j", db...)
	// The same graph in another node order: the same Δ2 up to rounding
	// (far inside its certified slack, ~1e-12).
	same := func(a, b float64) bool { return a-b <= 1e-12*b && b-a <= 1e-12*b }
	if !same(fromDB.Delta2, file.Delta2) {
		t.Errorf("Neo4j both ways: Δ2 %v, the edge list written once %v", fromDB.Delta2, file.Delta2)
	}
	if dbCert.Graph != fileCert.Graph {
		t.Errorf("certificates name two graphs: Neo4j %v, file %v", dbCert.Graph, fileCert.Graph)
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
	if !same(loaded.Delta2, file.Delta2) || loadedCert.Graph != fileCert.Graph || loaded.DuplicateEdges != nil {
		t.Errorf("loaded graph: Δ2 %v, %v, merges %+v; want the file's %v, %v, none", loaded.Delta2, loadedCert.Graph, loaded.DuplicateEdges, file.Delta2, fileCert.Graph)
	}
}

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Any graph into Neo4j and out (issue 81, item 2), and one name per
// community on Neo4j (item 1): an edge list with five isolated nodes
// ("key," rows) and integer keys whose numeric, string and file orders
// all differ is loaded with load --graph file:…; Neo4j then holds every
// node (isolated ones included: before, an edge list could not declare
// them and load had no --graph), export --graph neo4j writes it back with
// the same key-order fingerprint as export of the file, and plan on the
// Neo4j graph names every community as communities does (same sizes).
func TestLoadAnyGraphAndExportItBack(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	label, typ := uniqueName(t, "S81aNode"), uniqueName(t, "S81aLINK")
	t.Cleanup(func() { dropLabel(t, d, label) })
	dir := t.TempDir()
	edges := isolatedEdgeList(t, dir)
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j"}
	proj := append([]string{"--node-labels", label, "--relationship-types", typ, "--node-key-property", "s81aKey"}, conn...)
	run := func(args ...string) string {
		t.Helper()
		r := runCLI(t, s.Password, args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
		return r.Stdout
	}
	fingerprint := func(args ...string) (fp struct {
		NodeCount, RelationshipCount int
		SHA256                       string
	}, isolated int) {
		t.Helper()
		var sum struct {
			Isolated    int `json:"isolatedNodes"`
			Fingerprint struct {
				NodeCount, RelationshipCount int
				SHA256                       string
			}
		}
		if err := json.Unmarshal([]byte(run(append([]string{"export", "-o", "json"}, args...)...)), &sum); err != nil {
			t.Fatal(err)
		}
		return sum.Fingerprint, sum.Isolated
	}
	want, wantIso := fingerprint("--graph", "file:"+edges, "--out", filepath.Join(dir, "file.csv"))
	if want.NodeCount != 50 || wantIso != 5 {
		t.Fatalf("export of the file: %d nodes, %d isolated; want 50, 5", want.NodeCount, wantIso)
	}
	run(append([]string{"load", "--graph", "file:" + edges}, proj...)...)
	if n := query(t, d, "MATCH (n:`"+label+"`) RETURN count(n)", nil)[0].Values[0].(int64); n != 50 {
		t.Errorf("Neo4j holds %d nodes of the 50 loaded (45 with edges, 5 without)", n)
	}
	back := filepath.Join(dir, "back.csv")
	got, gotIso := fingerprint(append([]string{"--graph", "neo4j", "--out", back}, proj...)...)
	if got != want || gotIso != wantIso {
		t.Errorf("file → Neo4j → file: %+v (%d isolated), want %+v (%d isolated)", got, gotIso, want, wantIso)
	}
	size := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(run(append([]string{"communities", "--graph", "neo4j", "--mode", "stream"}, proj...)...)), "\n")[1:] {
		_, c, _ := strings.Cut(line, ",")
		size[c]++
	}
	var plan struct {
		Plan struct {
			Forecasts []struct {
				ByCommunity []struct {
					Community string
					Size      int
				}
			}
		}
	}
	out := run(append([]string{"plan", "--graph", "neo4j", "--communities", "leiden", "--trials", "20", "-o", "json"}, proj...)...)
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	for _, c := range plan.Plan.Forecasts[0].ByCommunity {
		if size[c.Community] != c.Size {
			t.Errorf("plan on Neo4j calls a community of %d nodes %q; communities' %q has %d", c.Size, c.Community, c.Community, size[c.Community])
		}
	}
}

// isolatedEdgeList writes an SBM of 45 nodes keyed 1000 + 7i mod 101
// (numeric, string and row orders differ), its rows backwards, and five
// isolated nodes 2000–2004 as "key," rows.
func isolatedEdgeList(t *testing.T, dir string) string {
	t.Helper()
	g, _, err := laplacian.Generate("sbm:sizes=20x15x10,pin=0.4,pout=0.02,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) string { return fmt.Sprint(1000 + (7*i)%101) }
	var rows []string
	g.ForEachEdge(func(i, j int, _ float64) { rows = append([]string{key(i) + "," + key(j)}, rows...) })
	for k := 2000; k < 2005; k++ {
		rows = append(rows, fmt.Sprintf("%d,", k))
	}
	path := filepath.Join(dir, "edges.csv")
	if err := os.WriteFile(path, []byte("source,target\n"+strings.Join(rows, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// karateEdges is each of karate's 78 friendships once, by integer key:
// the pairs a Cypher UNWIND takes, and the same rows for an edge list
// (lines "a,b", no header).
func karateEdges() (pairs []any, rows string) {
	karate, _ := laplacian.Karate()
	var b strings.Builder
	karate.ForEachEdge(func(i, j int, _ float64) {
		a, _ := strconv.Atoi(karate.Key(i))
		c, _ := strconv.Atoi(karate.Key(j))
		pairs = append(pairs, []any{a, c})
		fmt.Fprintf(&b, "%d,%d\n", a, c)
	})
	return pairs, b.String()
}

// storeMembers writes nodes with keys 1..nodes under a fresh label and
// one relationship per pair of a fresh type (both directions when both),
// dropped when t ends; it returns the label and the type.
func storeMembers(t *testing.T, d neo4j.DriverWithContext, nodes int, pairs []any, both bool) (label, typ string) {
	t.Helper()
	label, typ = uniqueName(t, "Member"), uniqueName(t, "FRIEND")
	t.Cleanup(func() { dropLabel(t, d, label) })
	create := "CREATE (a)-[:`" + typ + "`]->(b)"
	if both {
		create += ", (b)-[:`" + typ + "`]->(a)"
	}
	query(t, d, "UNWIND range(1, $n) AS k CREATE (:`"+label+"` {key: k})", map[string]any{"n": nodes})
	query(t, d, "UNWIND $pairs AS p MATCH (a:`"+label+"` {key: p[0]}), (b:`"+label+"` {key: p[1]}) "+create,
		map[string]any{"pairs": pairs})
	return label, typ
}

// writeTemp writes body to dir/name and returns its path.
func writeTemp(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// connArgs are the binary's flags that reach s.
func connArgs(s server) []string {
	return []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j"}
}

// sensitivityCert runs `sensitivity --tau 1 --save … -o json` with args,
// decodes its report into rep and returns the fingerprint its certificate
// names and its stderr.
func sensitivityCert(t *testing.T, s server, dir, name string, rep any, args ...string) (laplacian.Fingerprint, string) {
	t.Helper()
	save := filepath.Join(dir, name+".cert.json")
	r := runCLI(t, s.Password, append([]string{"sensitivity", "--tau", "1", "--save", save, "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("sensitivity %s: exit %d: %s", name, r.Code, r.Stderr)
	}
	if err := json.Unmarshal([]byte(r.Stdout), rep); err != nil {
		t.Fatalf("sensitivity %s: %v\n%s", name, err, r.Stdout)
	}
	var cert struct {
		Graph laplacian.Fingerprint `json:"graph"`
	}
	if b, err := os.ReadFile(save); err != nil || json.Unmarshal(b, &cert) != nil {
		t.Fatalf("certificate %s: %v", name, err)
	}
	return cert.Graph, r.Stderr
}

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFaithful (issue 49, deliver 2): load writes the graph of its
// files and nothing else.
//
//   - README's examples/rooms.csv loaded over examples/load-neo4j.cypher
//     (the same building, some doors stored the other way) changes nothing:
//     an undirected edge is one relationship whatever its direction (before:
//     17 → 19 relationships, conductance 0.9 → 1.8 on the doubled doors);
//   - repeated rows of one edge are one relationship, and the count of
//     merged rows is printed;
//   - a later file whose keys are of another type than the stored ones (one
//     non-integer key over integer keys) is refused naming the key, as is a
//     file mixing integer and non-integer keys (before: duplicated nodes);
//   - keys that are not valid UTF-8 are refused (before: two such keys
//     became one node);
//   - the key gets a uniqueness constraint (or an index).
func TestLoadFaithful(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	label, typ := uniqueName(t, "Room"), uniqueName(t, "DOOR")
	t.Cleanup(func() { dropLabel(t, d, label) })
	cypher, err := os.ReadFile(filepath.Join(root, "examples", "load-neo4j.cypher"))
	if err != nil {
		t.Fatal(err)
	}
	var stmt []string
	for _, l := range strings.Split(string(cypher), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			stmt = append(stmt, l)
		}
	}
	q := strings.TrimSuffix(strings.TrimSpace(strings.Join(stmt, "\n")), ";")
	q = strings.ReplaceAll(strings.ReplaceAll(q, ":Room", ":`"+label+"`"), ":DOOR", ":`"+typ+"`")
	query(t, d, q, nil)
	doors := func() (int64, float64) {
		r := query(t, d, "MATCH (:`"+label+"`)-[r:`"+typ+"`]->(:`"+label+"`) RETURN count(r), sum(r.conductance)", nil)
		return r[0].Values[0].(int64), r[0].Values[1].(float64)
	}
	rooms := func() int64 {
		return query(t, d, "MATCH (n:`"+label+"`) RETURN count(n)", nil)[0].Values[0].(int64)
	}
	n0, c0 := doors()
	if n0 != 17 {
		t.Fatalf("load-neo4j.cypher made %d doors, want 17", n0)
	}
	conn := connArgs(s)
	load := func(edges string, extra ...string) cliResult {
		args := append([]string{"load", "--edges", edges, "--node-labels", label, "--relationship-types", typ,
			"--node-key-property", "roomId", "--relationship-weight-property", "conductance"}, conn...)
		return runCLI(t, s.Password, append(args, extra...)...)
	}
	if r := load(filepath.Join(root, "examples", "rooms.csv")); r.Code != 0 {
		t.Fatalf("load rooms.csv: exit %d: %s", r.Code, r.Stderr)
	}
	if n, c := doors(); n != n0 || c != c0 {
		t.Errorf("rooms.csv over load-neo4j.cypher: %d doors of conductance %g, want %d of %g (the same building)", n, c, n0, c0)
	}

	dir := t.TempDir()
	write := func(name, body string) string { return writeTemp(t, dir, name, body) }
	// Three rows of one edge (both directions): one relationship of their
	// weight, the repeats counted.
	r := load(write("repeat.csv", "source,target,w\n301,302,1.5\n302,301,1.5\n301,302,1.5\n"), "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"duplicateRowsMerged": 2`) {
		t.Errorf("three rows of one edge: exit %d, stdout %s, stderr %s; want the 2 merged rows counted", r.Code, r.Stdout, r.Stderr)
	}
	door := func(a, b int) []any {
		rec := query(t, d, "MATCH (:`"+label+"` {roomId: $a})-[r:`"+typ+"`]-(:`"+label+"` {roomId: $b}) RETURN count(r), sum(r.conductance)",
			map[string]any{"a": a, "b": b})
		return rec[0].Values
	}
	if v := door(301, 302); v[0] != int64(1) || v[1] != 1.5 {
		t.Errorf("three rows of one edge: %v relationships of conductance %v, want 1 of 1.5", v[0], v[1])
	}
	// Rows of one pair whose weights differ need the operator's word:
	// refused (nothing written), or parallel doors whose weights add.
	twoDoors := write("two-doors.csv", "source,target,w\n303,304,1\n304,303,2\n")
	if r := load(twoDoors); r.Code != 3 || !strings.Contains(r.Stderr, "--duplicate-edges sum") {
		t.Errorf("two weights for one pair: exit %d, stderr %q; want exit 3 naming --duplicate-edges sum", r.Code, firstLine(r.Stderr))
	}
	if v := door(303, 304); v[0] != int64(0) {
		t.Errorf("a refused load wrote %v relationships", v[0])
	}
	if r := load(twoDoors, "--duplicate-edges", "sum"); r.Code != 0 || !strings.Contains(r.Stderr+r.Stdout, "summed as parallel edges") {
		t.Errorf("--duplicate-edges sum: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if v := door(303, 304); v[0] != int64(1) || v[1] != 3.0 {
		t.Errorf("two doors summed: %v relationships of conductance %v, want 1 of 3", v[0], v[1])
	}

	before := rooms()
	for _, c := range []struct{ name, body, want string }{
		{"string over integers", "source,target\n101,lobby\n", `"lobby"`},
		{"mixed", "source,target\n401,402\n402,hall\n", `"hall": is not an integer while "401", the first key, is an integer`},
		{"mixed, the line", "source,target\n401,402\n402,hall\n", "(line 3 of "},
		{"invalid UTF-8", "source,target\nk\xff,k\xfe\n", "UTF-8"},
	} {
		r := load(write(strings.ReplaceAll(c.name, " ", "_")+".csv", c.body))
		if r.Code != 3 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("load of %s keys: exit %d, stderr %q; want exit 3 naming %s", c.name, r.Code, firstLine(r.Stderr), c.want)
		}
	}
	if n := rooms(); n != before {
		t.Errorf("refused loads wrote %d nodes", n-before)
	}
	// (A uniqueness constraint is backed by an index: SHOW INDEXES lists both.)
	if r := query(t, d, "SHOW INDEXES YIELD labelsOrTypes, properties WHERE $l IN labelsOrTypes AND 'roomId' IN properties RETURN 1",
		map[string]any{"l": label}); len(r) == 0 {
		t.Errorf("no constraint or index on (:%s).roomId after load", label)
	}
}

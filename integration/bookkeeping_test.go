package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphcloak/graphcloak/connector"
)

// bookkeeping are graphcloak's own labels (connector.BookkeepingLabels),
// spelled out so that the test does not trust the list it checks.
var bookkeeping = []string{"GraphcloakRun", "GraphcloakLedger", "GraphcloakCharge",
	"GraphcloakReleaseValues", "GraphcloakScopeLease", "GraphcloakOutput"}

// bookkeepingSnapshot is every property of the scope's ledger, charges
// and runs, and how many bookkeeping nodes carry any of props (the test's
// own property names, which no bookkeeping node may ever get).
func bookkeepingSnapshot(t testing.TB, d neo4j.DriverWithContext, scope string, props []string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range query(t, d, "MATCH (n) WHERE (n:GraphcloakLedger OR n:GraphcloakCharge OR n:GraphcloakRun) AND n.scope = $s "+
		"RETURN labels(n)[0] + ' ' + coalesce(n.chargeId, n.runId, '') AS id, properties(n) AS p ORDER BY id", map[string]any{"s": scope}) {
		p := r.Values[1].(map[string]any)
		ks := make([]string, 0, len(p))
		for k := range p {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		fmt.Fprintf(&b, "%v:", r.Values[0])
		for _, k := range ks {
			fmt.Fprintf(&b, " %s=%v", k, p[k])
		}
		b.WriteByte('\n')
	}
	n := query(t, d, "MATCH (n:`"+strings.Join(bookkeeping, "`|`")+"`) WHERE any(k IN keys(n) WHERE k IN $props) RETURN count(n)",
		map[string]any{"props": props})[0].Values[0]
	fmt.Fprintf(&b, "bookkeeping nodes with the test's properties: %v\n", n)
	return b.String()
}

// TestBookkeepingNeverProjected: graphcloak's own
// labels are never read as a graph nor written by any command, whatever
// labels the user names. Before, communities --node-labels
// GraphcloakLedger --community-write-property rhoSpent rewrote the ledger's
// totals, the same on GraphcloakCharge rewrote the charges' ρ, and load
// --node-labels GraphcloakRun created fake run records, all with exit 0.
// Now every command × bookkeeping label is refused (exit 3, naming the
// bookkeeping) before anything is read or written; a bookkeeping node that
// also carries the user's label is left out of the user's graph.
func TestBookkeepingNeverProjected(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{12, 12}, 0.5, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DETACH DELETE r", map[string]any{"p": e.scope})
	})
	releaseJSON(t, e, e.releaseArgs("epoch-1"))
	dir := t.TempDir()
	edges, values := filepath.Join(dir, "edges.csv"), filepath.Join(dir, "values.csv")
	if err := os.WriteFile(edges, []byte("source,target\n990001,990002\n990002,990003\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, []byte("node,value\n990001,5\n990002,6\n990003,7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gcKey, gcW := "gcKey_"+e.scope, "gcW_"+e.scope
	props := []string{gcKey, gcW, e.comm, "key"}
	before := bookkeepingSnapshot(t, d, e.scope, props)
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j"}
	nodesBefore, relsBefore := f.count(t, d)
	for _, label := range bookkeeping {
		for _, c := range []struct {
			name string
			args []string
		}{
			{"communities", []string{"communities", "--graph", "neo4j", "--node-labels", label, "--community-write-property", "rhoSpent"}},
			{"communities (with the user's label)", []string{"communities", "--graph", "neo4j", "--node-labels", f.Label + "," + label,
				"--node-key-property", "key", "--community-write-property", e.comm}},
			{"load", []string{"load", "--edges", edges, "--values", values, "--node-labels", label, "--relationship-types", f.RelType,
				"--node-key-property", gcKey, "--relationship-weight-property", gcW, "--value-property", "spent"}},
			{"load (type)", []string{"load", "--edges", edges, "--node-labels", f.Label, "--relationship-types", label,
				"--node-key-property", "key"}},
			{"release", replaceFlag(e.releaseArgs("epoch-"+label), "--node-labels", label)},
			{"locate", []string{"locate", "--graph", "neo4j", "--node-labels", label, "--values", values,
				"--sigma", "1", "--communities", "louvain", "--community-write-property", e.comm, "--mass-property", gcW}},
		} {
			r := runCLI(t, s.Password, append(c.args, conn...)...)
			if r.Code != 3 || !strings.Contains(r.Stderr, "graphcloak's own bookkeeping") || !strings.Contains(r.Stderr, label) {
				t.Errorf("%s --node-labels/--relationship-types %s: exit %d, stderr %q; want exit 3 naming graphcloak's own bookkeeping",
					c.name, label, r.Code, firstLine(r.Stderr))
			}
		}
	}
	if after := bookkeepingSnapshot(t, d, e.scope, props); after != before {
		t.Errorf("graphcloak's bookkeeping changed although every command was refused:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if n, r := f.count(t, d); n != nodesBefore || r != relsBefore {
		t.Errorf("the user's graph changed: %d nodes, %d relationships; want %d, %d", n, r, nodesBefore, relsBefore)
	}

	// A bookkeeping node that also carries the user's label is not part of
	// the user's graph: not read (the node count), not written.
	query(t, d, "CREATE (:GraphcloakOutput:`"+f.Label+"` {property: $p, kind: 'community ids', key: 990099})", map[string]any{"p": "decoy_" + e.scope})
	c, _ := connect(t)
	for _, cypher := range []bool{false, true} {
		pulled, err := c.ReadGraph(ctxT(t), f.projection(true), connector.ReadOptions{Cypher: cypher})
		if err != nil || pulled.Graph.N() != len(f.Keys) {
			t.Errorf("ReadGraph (Cypher %v) over a decoy bookkeeping node with the user's label: %v; want %d nodes, not the decoy",
				cypher, err, len(f.Keys))
		}
	}
	args := append([]string{"communities", "--graph", "neo4j", "--node-labels", f.Label, "--relationship-types", f.RelType,
		"--node-key-property", "key", "--community-write-property", e.comm, "-o", "json"}, conn...)
	if r := runCLI(t, s.Password, args...); r.Code != 0 || !strings.Contains(r.Stdout, fmt.Sprintf(`"nodeCount": %d`, len(f.Keys))) {
		t.Errorf("communities over a decoy bookkeeping node with the user's label: exit %d, stdout %.300s, stderr %s; want %d nodes",
			r.Code, r.Stdout, firstLine(r.Stderr), len(f.Keys))
	}
	if n := query(t, d, "MATCH (o:GraphcloakOutput {property: $p}) WHERE o[$c] IS NOT NULL RETURN count(o)",
		map[string]any{"p": "decoy_" + e.scope, "c": e.comm})[0].Values[0]; n != int64(0) {
		t.Errorf("communities wrote %s onto a bookkeeping node carrying the user's label", e.comm)
	}
}

// TestLoadHonoursOutputRegistry: load writes node
// keys and readings only where the output registry allows, as locate and
// communities do, and is refused before any write. Before, load
// --value-property <release's property> exited 0 and put raw readings into
// the property readers treat as private, and the run-id property was
// replaced the same way.
func TestLoadHonoursOutputRegistry(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{12, 12}, 0.5, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DETACH DELETE r", map[string]any{"p": e.scope})
	})
	releaseJSON(t, e, e.releaseArgs("epoch-1"))
	comm := append(append([]string{"communities"}, e.projectionFlags()...), "--community-write-property", e.comm)
	if r := runCLI(t, s.Password, comm...); r.Code != 0 {
		t.Fatalf("communities: exit %d: %s", r.Code, r.Stderr)
	}
	dir := t.TempDir()
	edges, values := filepath.Join(dir, "edges.csv"), filepath.Join(dir, "values.csv")
	// New keys: any write would add nodes.
	if err := os.WriteFile(edges, []byte("source,target,w\n990001,990002,1\n990002,990003,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, []byte("node,value\n990001,101\n990002,102\n990003,103\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runID := e.write + "_runId"
	released, ids, comms := nodeValues(t, d, f.Label, e.write), nodeValues(t, d, f.Label, runID), nodeValues(t, d, f.Label, e.comm)
	nodes, rels := f.count(t, d)
	load := func(key, value string) cliResult {
		return runCLI(t, s.Password, "load", "--edges", edges, "--values", values, "--node-labels", f.Label,
			"--relationship-types", f.RelType, "--node-key-property", key, "--relationship-weight-property", "w",
			"--value-property", value, "--uri", s.URI, "--user", s.User, "--database", "neo4j")
	}
	for _, c := range []struct {
		key, value, want string
	}{
		{"key", e.write, "release values"},
		{"key", runID, "run ids"},
		{"key", e.comm, "community ids"},
		{e.write, "obs", "release values"},
		{runID, "obs", "run ids"},
	} {
		r := load(c.key, c.value)
		if r.Code != 3 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("load --node-key-property %s --value-property %s: exit %d, stderr %q; want exit 3 naming %s",
				c.key, c.value, r.Code, firstLine(r.Stderr), c.want)
		}
	}
	if n, r := f.count(t, d); n != nodes || r != rels {
		t.Fatalf("a refused load wrote: %d nodes, %d relationships; want %d, %d", n, r, nodes, rels)
	}
	for _, c := range []struct {
		prop   string
		before map[int64]any
	}{{e.write, released}, {runID, ids}, {e.comm, comms}} {
		if after := nodeValues(t, d, f.Label, c.prop); fmt.Sprint(after) != fmt.Sprint(c.before) {
			t.Errorf("%s changed although every load into it was refused", c.prop)
		}
	}
	// The readings the release read (registered as raw readings) may be
	// loaded again: that is what load is for.
	if r := load("key", "obs"); r.Code != 0 {
		t.Errorf("load --value-property obs (the release's raw readings): exit %d: %s", r.Code, r.Stderr)
	}
}

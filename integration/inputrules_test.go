package integration

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A pair stored twice read with --duplicate-edges reject is the same bad
// input from Neo4j as from an edge list: one kind (exit 3), by either read
// path, naming the pair (issue 77, item 6).
func TestNeo4jRejectedDuplicateIsBadInputAsInAFile(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	label, typ := uniqueName(t, "Dup"), uniqueName(t, "LINK")
	t.Cleanup(func() { dropLabel(t, d, label) })
	query(t, d, "CREATE (a:`"+label+"` {key: 'a'}), (b:`"+label+"` {key: 'b'}), (c:`"+label+"` {key: 'c'}), "+
		"(a)-[:`"+typ+"`]->(b), (b)-[:`"+typ+"`]->(a), (b)-[:`"+typ+"`]->(c)", nil)
	_, fileErr := laplacian.ReadCSV(strings.NewReader("a,b\nb,a\nb,c\n"), laplacian.Options{Duplicates: laplacian.DuplicatesReject})
	if fileErr == nil || errkind.Of(fileErr) != errkind.BadInput {
		t.Fatalf("edge list: %v (kind %v), want bad input", fileErr, errkind.Of(fileErr))
	}
	pr := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{typ}, NodeKeyProperty: "key"}
	for _, path := range readPaths {
		t.Run(path.name, func(t *testing.T) {
			opt := path.opt
			opt.Duplicates = laplacian.DuplicatesReject
			_, err := c.ReadGraph(ctxT(t), pr, opt)
			if err == nil || errkind.Of(err) != errkind.Of(fileErr) || !strings.Contains(err.Error(), "a") {
				t.Errorf("Neo4j: %v (kind %v), want the edge list's kind %v", err, errkind.Of(err), errkind.Of(fileErr))
			}
		})
	}
}

// Neo4j node keys a reader takes for one node — "027" beside "27", or
// "Alice" beside "alice" — are refused as an edge list's are (bad input,
// naming both), by either read path; they used to become two nodes.
func TestNeo4jKeysWrittenTwoWaysAreRefused(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	for _, pair := range [][2]string{{"027", "27"}, {"Alice", "alice"}} {
		label, typ := uniqueName(t, "Key"), uniqueName(t, "LINK")
		t.Cleanup(func() { dropLabel(t, d, label) })
		query(t, d, "CREATE (a:`"+label+"` {key: $a}), (b:`"+label+"` {key: $b}), (c:`"+label+"` {key: 'c'}), "+
			"(a)-[:`"+typ+"`]->(c), (c)-[:`"+typ+"`]->(b)", map[string]any{"a": pair[0], "b": pair[1]})
		pr := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{typ}, NodeKeyProperty: "key"}
		for _, path := range readPaths {
			_, err := c.ReadGraph(ctxT(t), pr, path.opt)
			if err == nil || errkind.Of(err) != errkind.BadInput ||
				!strings.Contains(err.Error(), `"`+pair[0]+`"`) || !strings.Contains(err.Error(), `"`+pair[1]+`"`) {
				t.Errorf("%s, keys %q: %v (kind %v), want bad input naming both", path.name, pair, err, errkind.Of(err))
			}
		}
	}
}

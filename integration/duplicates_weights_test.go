package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestNeo4jBothWaysDisagreeingWeights (issue 70, deliver 1; review): a
// pair stored in both directions with two different weights is not one
// edge under the default rule: both read paths refuse it, naming the pair,
// both weights and duplicate-edges sum, and the CLI exits 3 saying
// --duplicate-edges; with sum the weights add (1 + 2.5 on the pair).
func TestNeo4jBothWaysDisagreeingWeights(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	label, typ := uniqueName(t, "Room"), uniqueName(t, "DOOR")
	t.Cleanup(func() { dropLabel(t, d, label) })
	query(t, d, "CREATE (a:`"+label+"` {key: 'a'}), (b:`"+label+"` {key: 'b'}), (c:`"+label+"` {key: 'c'}), "+
		"(a)-[:`"+typ+"` {w: 1.0}]->(b), (b)-[:`"+typ+"` {w: 2.5}]->(a), (b)-[:`"+typ+"` {w: 1.0}]->(c)", nil)
	pr := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{typ}, NodeKeyProperty: "key", RelationshipWeightProperty: "w"}
	for _, path := range readPaths {
		t.Run(path.name, func(t *testing.T) {
			_, err := c.ReadGraph(ctxT(t), pr, path.opt)
			var de *laplacian.DuplicateError
			if !errors.Is(err, laplacian.ErrConflictingDuplicate) || !errors.As(err, &de) {
				t.Fatalf("read a pair of weights 1 and 2.5 by the default rule: err %v, want a *laplacian.DuplicateError", err)
			}
			if pair := de.U + de.V; pair != "ab" && pair != "ba" || min(de.W1, de.W2) != 1 || max(de.W1, de.W2) != 2.5 {
				t.Errorf("error names (%s, %s) with %g and %g, want the pair a, b with 1 and 2.5", de.U, de.V, de.W1, de.W2)
			}
			opt := path.opt
			opt.Duplicates = laplacian.DuplicatesSum
			p, err := c.ReadGraph(ctxT(t), pr, opt)
			if err != nil {
				t.Fatalf("sum: %v", err)
			}
			g := p.Graph
			ia, ib := -1, -1
			for i := 0; i < g.N(); i++ {
				switch g.Key(i) {
				case "a":
					ia = i
				case "b":
					ib = i
				}
			}
			w := 0.0
			g.ForEachEdge(func(i, j int, wt float64) {
				if i == ia && j == ib || i == ib && j == ia {
					w += wt
				}
			})
			if g.NumEdges() != 2 || w != 3.5 {
				t.Errorf("sum: %d edges, weight %g on (a, b); want 2 edges, 3.5", g.NumEdges(), w)
			}
		})
	}
	r := runCLI(t, s.Password, "sensitivity", "--tau", "1", "--graph", "neo4j", "--node-labels", label, "--relationship-types", typ,
		"--node-key-property", "key", "--relationship-weight-property", "w", "--uri", s.URI, "--user", s.User, "--database", "neo4j")
	if r.Code != 3 || !strings.Contains(r.Stderr, "--duplicate-edges sum") {
		t.Errorf("sensitivity on the disagreeing pair: exit %d, stderr %q; want exit 3 naming --duplicate-edges sum", r.Code, r.Stderr)
	}
}

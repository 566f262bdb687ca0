package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/stores"
)

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

func TestLoadGraph(t *testing.T) {
	g := testGlobals(t, nil)
	ctx := context.Background()
	grid, err := loadGraphFlag(ctx, g, "grid:rows=3,cols=4", "", false)
	if err != nil || grid.Graph.N() != 12 || grid.Graph.NumEdges() != 17 {
		t.Fatalf("grid 3×4: %v, %v", grid, err)
	}
	st, err := openGraph(ctx, g, "sbm:sizes=5x5,pin=1,pout=0", "")
	if err != nil || st.Client != nil {
		t.Fatalf("stores of a generated graph: %+v, %v; want nothing connected", st, err)
	}
	lg, err := st.LoadGraph(ctx, "sbm:sizes=5x5,pin=1,pout=0", stores.LoadOptions{})
	if err != nil || lg.IsNeo4j() || len(lg.Partition) != 10 || lg.Graph.NumEdges() != 20 {
		t.Fatalf("sbm: %+v, %v", lg, err)
	}
	if _, err := st.LoadGraph(ctx, "", stores.LoadOptions{}); exitCode(err) != exitUsage || errorMessage(err) != "--graph is required (neo4j, a generator such as karate or sbm:sizes=50x50,pin=0.2,pout=0.01, or file:PATH)" {
		t.Errorf("empty spec: %v (exit %d), want a usage error naming --graph", err, exitCode(err))
	}
	// Neo4j: a bad label is refused before connecting (the URI is
	// unreachable, so a connection attempt would give another error).
	bad := testGlobals(t, func(c *config.Config) {
		c.Neo4j.URI = "bolt://127.0.0.1:1"
		c.Projection.NodeLabels = []string{"A`B"}
	})
	var ie *connector.IdentifierError
	if _, err := loadGraphFlag(ctx, bad, "neo4j", "", false); !errors.As(err, &ie) {
		t.Errorf("bad label: %v, want *connector.IdentifierError", err)
	}
	down := testGlobals(t, func(c *config.Config) { c.Neo4j.URI = "bolt://127.0.0.1:1" })
	// So is a bad community property read with the graph.
	if _, err := loadExperimentGraph(ctx, down, "neo4j", "a`b"); !errors.As(err, &ie) {
		t.Errorf("bad community property: %v, want *connector.IdentifierError", err)
	}
	var un *connector.UnreachableError
	if _, err := loadGraphFlag(ctx, down, "neo4j", "", false); !errors.As(err, &un) || exitCode(err) != exitDBUnreachable {
		t.Errorf("unreachable: %v (exit %d), want *connector.UnreachableError", err, exitCode(err))
	}
}

// Parsing: an edge list with a from,to header used to gain two
// nodes (a second component, another Δ2) and exit 0; an unrecognised
// header above numeric rows is refused; --header (or input.header) decides.
func TestEdgeListHeaderCLI(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	nodes := func(file string, args ...string) (int, int) {
		t.Helper()
		out, code, _ := runPrivacyCLI(t, append([]string{"sensitivity", "--graph", "file:" + file, "-o", "json"}, args...)...)
		if code != 0 {
			return 0, code
		}
		var r struct {
			Nodes int `json:"nodeCount"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Nodes, code
	}
	fromTo := filepath.Join(dir, "from-to.csv")
	os.WriteFile(fromTo, []byte("from,to\na,b\nb,c\n"), 0o600)
	if n, code := nodes(fromTo); n != 3 || code != 0 {
		t.Errorf("from,to header: %d nodes (exit %d), want 3", n, code)
	}
	xy := filepath.Join(dir, "xy.csv")
	os.WriteFile(xy, []byte("x,y\n1,2\n2,3\n"), 0o600)
	if _, code := nodes(xy); code != exitBadInput {
		t.Errorf("unrecognised header: exit %d, want 3", code)
	}
	if n, _ := nodes(xy, "--header", "yes"); n != 3 {
		t.Errorf("--header yes: %d nodes, want 3", n)
	}
	// Read as an edge, the row x,y puts string keys beside integers: refused
	// as load refuses them (laplacian.CheckKeyTypes), not two more nodes.
	if n, code := nodes(xy, "--header", "no"); code != exitBadInput {
		t.Errorf("--header no: %d nodes (exit %d), want the mixed keys refused (exit 3)", n, code)
	}
	t.Setenv("GRAPHCLOAK_INPUT_HEADER", "yes")
	if n, _ := nodes(xy); n != 3 {
		t.Errorf("GRAPHCLOAK_INPUT_HEADER=yes: %d nodes, want 3", n)
	}
}

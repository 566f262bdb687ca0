package main

import (
	"context"
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/uniquekeys"
	"github.com/graphcloak/graphcloak/stores"
)

func testGlobals(t *testing.T, mutate func(*config.Config)) *globalOptions {
	t.Helper()
	isolateConfig(t)
	l, err := config.Load(config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&l.Config)
	}
	return &globalOptions{cfg: l, logger: uniquekeys.NewLogger(&testWriter{t}, "text", "info"), stderr: &testWriter{t}}
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

func TestLoadGraph(t *testing.T) {
	g := testGlobals(t, nil)
	ctx := context.Background()
	gr, err := loadGraphSpec(ctx, g, "grid:rows=3,cols=4")
	if err != nil || gr.N() != 12 || gr.NumEdges() != 17 {
		t.Fatalf("grid 3×4: %v nodes, %v", gr, err)
	}
	lg, err := stores.LoadGraph(ctx, &g.cfg.Config, "sbm:sizes=5x5,pin=1,pout=0", stores.LoadOptions{})
	if err != nil || lg.IsNeo4j() || len(lg.Partition) != 10 || lg.Graph.NumEdges() != 20 {
		t.Fatalf("sbm: %+v, %v", lg, err)
	}
	if _, err := stores.LoadGraph(ctx, &g.cfg.Config, "", stores.LoadOptions{}); exitCode(err) != exitUsage || errorMessage(err) != "--graph is required (neo4j, a generator such as karate or sbm:sizes=50x50,pin=0.2,pout=0.01, or file:PATH)" {
		t.Errorf("empty spec: %v (exit %d), want a usage error naming --graph", err, exitCode(err))
	}
	// Neo4j: a bad label is refused before connecting (the URI is
	// unreachable, so a connection attempt would give another error).
	bad := testGlobals(t, func(c *config.Config) {
		c.Neo4j.URI = "bolt://127.0.0.1:1"
		c.Projection.NodeLabels = []string{"A`B"}
	})
	var ie *connector.IdentifierError
	if _, err := loadGraphSpec(ctx, bad, "neo4j"); !errors.As(err, &ie) {
		t.Errorf("bad label: %v, want *connector.IdentifierError", err)
	}
	down := testGlobals(t, func(c *config.Config) { c.Neo4j.URI = "bolt://127.0.0.1:1" })
	var un *connector.UnreachableError
	if _, err := loadGraphSpec(ctx, down, "neo4j"); !errors.As(err, &un) || exitCode(err) != exitDBUnreachable {
		t.Errorf("unreachable: %v (exit %d), want *connector.UnreachableError", err, exitCode(err))
	}
}

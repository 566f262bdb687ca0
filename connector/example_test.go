package connector_test

import (
	"context"
	"fmt"
	"os"

	"github.com/graphcloak/graphcloak/connector"
)

// Example reads a projection, writes one property per node and records
// the run. It needs a server (scripts/neo4j.sh start), so it has no
// Output line and is only compiled by go test.
func Example() {
	ctx := context.Background()
	c, err := connector.Connect(ctx, connector.Options{
		URI: "bolt://127.0.0.1:7687", User: "neo4j", Password: os.Getenv("GRAPHCLOAK_NEO4J_PASSWORD"),
	})
	if err != nil {
		fmt.Println(err) // *UnreachableError, *AuthError or *ArgumentError
		return
	}
	defer c.Close(ctx)

	p := connector.Projection{
		NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"},
		RelationshipWeightProperty: "width", NodeKeyProperty: "roomId", ValueProperty: "heat",
	}
	run := connector.RunRecord{RunID: "run-1", Command: "example", Status: connector.StatusRunning, Projection: p}
	if err := c.WriteRunRecord(ctx, run); err != nil {
		fmt.Println(err)
		return
	}
	pulled, err := c.ReadGraph(ctx, p, connector.ReadOptions{})
	if err != nil {
		fmt.Println(err) // *SchemaError (unknown label), *DataError (missing values), …
		return
	}
	rows := make([]connector.NodeProps, pulled.Graph.N())
	for i := range rows {
		rows[i] = connector.NodeProps{Key: pulled.Graph.Key(i), Props: map[string]any{"heatDoubled": 2 * pulled.Values[i]}}
	}
	st, err := c.WriteProperties(ctx, p, rows, connector.WriteOptions{BatchSize: 10_000})
	run.Status, run.NodePropertiesWritten, run.WriteMillis = connector.StatusSucceeded, st.NodePropertiesWritten, st.WriteMillis
	if err != nil {
		run.Status, run.Error = connector.StatusFailed, err.Error()
	}
	if err := c.WriteRunRecord(ctx, run); err != nil { // last
		fmt.Println(err)
	}
}

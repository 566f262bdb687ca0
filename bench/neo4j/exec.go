package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// execStatements runs each statement in its own auto-commit transaction
// (so CALL { … } IN TRANSACTIONS works) against NEO4J_URI and prints one
// line per statement: its wall time in seconds, the values of its first
// record (if any), and the statement. load.sh times LOAD CSV and the
// constraint with it, and counts what was loaded.
func execStatements(stmts []string) error {
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		return fmt.Errorf("NEO4J_URI is not set (start a server with scripts/neo4j.sh start)")
	}
	user := os.Getenv("NEO4J_USER")
	if user == "" {
		user = "neo4j"
	}
	ctx := context.Background()
	d, err := neo4j.NewDriverWithContext(uri, neo4j.BasicAuth(user, os.Getenv("NEO4J_PASSWORD"), ""))
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	s := d.NewSession(ctx, neo4j.SessionConfig{DatabaseName: "neo4j"})
	defer s.Close(ctx)
	for _, q := range stmts {
		t0 := time.Now()
		res, err := s.Run(ctx, q, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		var first []any
		if len(recs) > 0 {
			first = recs[0].Values
		}
		fmt.Printf("%.2f\t%v\t%s\n", time.Since(t0).Seconds(), first, q)
	}
	return nil
}

package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestClassify maps driver errors to the connector's error kinds, which
// the CLI turns into exit codes.
func TestClassify(t *testing.T) {
	c := &Client{uri: "bolt://db:7687", user: "neo4j"}
	conn := &neo4j.ConnectivityError{Inner: io.EOF}
	tests := []struct {
		name string
		err  error
		want any
	}{
		{"unauthorized", &neo4j.Neo4jError{Code: "Neo.ClientError.Security.Unauthorized", Msg: "bad credentials"}, &AuthError{}},
		{"forbidden", &neo4j.Neo4jError{Code: "Neo.ClientError.Security.Forbidden", Msg: "no write"}, &AuthError{}},
		{"connectivity", conn, &UnreachableError{}},
		{"wrapped connectivity", fmt.Errorf("x: %w", conn), &UnreachableError{}},
		{"retries exhausted", &neo4j.TransactionExecutionLimit{Cause: "timeout", Errors: []error{conn, conn}}, &UnreachableError{}},
		{"db unavailable", &neo4j.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable"}, &UnreachableError{}},
		{"syntax", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "oops"}, &QueryError{}},
		{"unknown database", &neo4j.Neo4jError{Code: "Neo.ClientError.Database.DatabaseNotFound"}, &QueryError{}},
		{"other", errors.New("boom"), &QueryError{}},
		{"typed passes through", &SchemaError{What: "label", Name: "X"}, &SchemaError{}},
	}
	for _, tc := range tests {
		got := c.classify("op", tc.err)
		var ok bool
		switch tc.want.(type) {
		case *AuthError:
			var e *AuthError
			ok = errors.As(got, &e)
		case *UnreachableError:
			var e *UnreachableError
			ok = errors.As(got, &e)
		case *QueryError:
			var e *QueryError
			ok = errors.As(got, &e)
		case *SchemaError:
			var e *SchemaError
			ok = errors.As(got, &e)
		}
		if !ok {
			t.Errorf("%s: classify(%v) = %T %v, want %T", tc.name, tc.err, got, got, tc.want)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%s: the cause is not wrapped", tc.name)
		}
	}
	for _, ce := range []error{context.Canceled, context.DeadlineExceeded} {
		got := c.classify("op", fmt.Errorf("driver: %w", ce))
		var q *QueryError
		if !errors.Is(got, ce) || errors.As(got, &q) {
			t.Errorf("classify(%v) = %v: cancellation must pass through unclassified", ce, got)
		}
	}
	if msg := c.classify("connect", &neo4j.Neo4jError{Code: "Neo.ClientError.Security.Unauthorized"}).Error(); !strings.Contains(msg, "authentication failed") {
		t.Errorf("auth message %q", msg)
	}
}

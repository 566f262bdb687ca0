package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

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

// lateTimer is a context whose deadline has passed but whose timer has not
// fired yet (Err is still nil), as the driver can see it: its socket
// deadline fires at the context's deadline, before the context's goroutine.
type lateTimer struct{ context.Context }

func (lateTimer) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// pastDeadline is lateTimer with one fixed deadline, shared by a caller's
// context and the transaction's context derived from it.
type pastDeadline struct {
	context.Context
	at time.Time
}

func (p pastDeadline) Deadline() (time.Time, bool) { return p.at, true }

// TestClassifyTimedByClock: a transaction that ran into its client-side
// deadline is a *TimeoutError naming the limit, whether or not the
// context's timer has fired; one whose caller was cancelled is not.
func TestClassifyTimedByClock(t *testing.T) {
	c := &Client{uri: "bolt://db:7687", txTimeout: 2 * time.Second, acquireTimeout: 2 * time.Second}
	cause := errors.New("ConnectivityError: Timeout while reading from connection: context deadline exceeded")
	var te *TimeoutError
	if err := c.classifyTimed(context.Background(), lateTimer{context.Background()}, "write properties", cause); !errors.As(err, &te) || te.After != 4*time.Second {
		t.Fatalf("deadline passed, timer not fired: %v (%T), want *TimeoutError after 4s", err, err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.classifyTimed(cancelled, lateTimer{context.Background()}, "write properties", cause); errors.As(err, &te) {
		t.Fatalf("caller cancelled: %v, want no *TimeoutError", err)
	}
	if err := c.classifyTimed(context.Background(), context.Background(), "write properties", cause); errors.As(err, &te) {
		t.Fatalf("no deadline: %v, want no *TimeoutError", err)
	}
	// The caller's own deadline (a run's bookkeeping deadline, 15 s) bound
	// first: the message must not blame the transaction timeout (CI once
	// printed "did not answer within 2m30s" for a 5 s bookkeeping wait).
	bound := pastDeadline{context.Background(), time.Now().Add(-time.Millisecond)}
	err := c.classifyTimed(bound, bound, "record failed run", cause)
	if !errors.As(err, &te) || te.After != 0 || strings.Contains(err.Error(), "transaction timeout") || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("caller's deadline bound: %v, want a *TimeoutError naming the caller's deadline", err)
	}
}

// TestClassifySocketTimeout: the driver's own socket deadline on a server
// that stopped answering is a *TimeoutError (the release says "did not
// answer within"), while a refused connection stays unreachable.
func TestClassifySocketTimeout(t *testing.T) {
	c := &Client{uri: "bolt://db:7687", txTimeout: 2 * time.Second, acquireTimeout: 2 * time.Second}
	var te *TimeoutError
	var ue *UnreachableError
	for _, inner := range []error{
		&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded},
		errors.New("Timeout while reading from connection [server-side timeout hint: 2s, user-provided context deadline: N/A]: i/o timeout"),
	} {
		if err := c.classify("write properties", &neo4j.ConnectivityError{Inner: inner}); !errors.As(err, &te) || te.After != 4*time.Second {
			t.Errorf("%v: got %v (%T), want *TimeoutError after 4s", inner, err, err)
		}
	}
	refused := &neo4j.ConnectivityError{Inner: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	if err := c.classify("connect", refused); !errors.As(err, &ue) {
		t.Errorf("refused: got %v (%T), want *UnreachableError", err, err)
	}
	noLimit := &Client{uri: c.uri}
	if err := noLimit.classify("read", &neo4j.ConnectivityError{Inner: os.ErrDeadlineExceeded}); !errors.As(err, &ue) {
		t.Errorf("no transaction timeout configured: got %v (%T), want *UnreachableError", err, err)
	}
}

// A transaction the server ended at its timeout (a process paused inside
// it: ownedWrite tries the write once more while the run is still
// "running") is told from a lock wait that its timeout ended (the lock's
// holder is still there: not tried again), also once classified.
func TestTransactionTimedOut(t *testing.T) {
	c := &Client{uri: "bolt://db:7687", user: "neo4j", txTimeout: 20 * time.Second}
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration", true},
		{"Neo.ClientError.Transaction.TransactionTimedOut", true},
		{"Neo.TransientError.Transaction.LockClientStopped", false},
		{"Neo.TransientError.General.DatabaseUnavailable", false},
	} {
		err := c.classify("update run record", &neo4j.Neo4jError{Code: tc.code})
		if got := transactionTimedOut(err); got != tc.want {
			t.Errorf("%s (classified %T): transactionTimedOut = %v, want %v", tc.code, err, got, tc.want)
		}
	}
	if transactionTimedOut(errors.New("boom")) {
		t.Error("a plain error taken for a terminated transaction")
	}
}

// A lost lease names the run, the status found and when its lease expired.
func TestLeaseLost(t *testing.T) {
	exp := time.Date(2026, 11, 26, 14, 5, 27, 0, time.FixedZone("x", 3600))
	e := leaseLost("r1", StatusAbandoned, exp)
	if e.RunID != "r1" || e.Status != StatusAbandoned || !e.LeaseExpiresAt.Equal(exp) {
		t.Fatalf("%+v", e)
	}
	if want := `connector: run "r1" lost its lease (record status "abandoned"); its lease expired at 2026-11-26T13:05:27Z`; e.Error() != want {
		t.Errorf("got %q, want %q", e.Error(), want)
	}
	if e := leaseLost("r2", nil, nil); e.Status != "" || !e.LeaseExpiresAt.IsZero() || e.Error() != `connector: run "r2" lost its lease (record status "")` {
		t.Errorf("a record gone: %+v, %q", e, e.Error())
	}
}

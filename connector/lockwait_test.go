package connector

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// A lock-wait bound is at least MinLockWait, at most the client's own
// transaction timeout, and sets the transaction's server-side timeout
// and the client's deadline (a grace after it); without one, nothing
// changes.
func TestBoundedTx(t *testing.T) {
	bg := context.Background()
	if LockWaitOf(bg) != 0 {
		t.Fatal("a bound on a plain context")
	}
	if d := LockWaitOf(WithLockWait(bg, -time.Second)); d != MinLockWait {
		t.Errorf("a wait already up: bound %v, want %v", d, MinLockWait)
	}
	for _, tc := range []struct {
		txTimeout, wait, want time.Duration
	}{
		{0, 10 * time.Second, 10 * time.Second},                   // the server's default timeout: the wait
		{2 * time.Minute, 10 * time.Second, 10 * time.Second},     // the wait is the shorter
		{20 * time.Second, 5 * time.Minute, 20 * time.Second},     // the transaction timeout is
		{2 * time.Minute, time.Millisecond, MinLockWait},          // at least MinLockWait
		{2 * time.Minute, 0, MinLockWait},                         // a wait of 0 too
		{time.Second, 0, time.Second},                             // never past the transaction timeout
		{2 * time.Minute, 2 * time.Minute, 2 * time.Minute},       // equal
		{2 * time.Minute, 3 * time.Minute, 2 * time.Minute},       // longer wait
		{0, 3 * time.Minute, 3 * time.Minute},                     // no transaction timeout
		{30 * time.Second, 6 * time.Second, 6 * time.Second},      // just above the floor
		{30 * time.Second, 4 * time.Second, MinLockWait},          // just below it
		{0, MinLockWait + time.Second, MinLockWait + time.Second}, // no timeout, above the floor
	} {
		c := &Client{uri: "bolt://db:7687", txTimeout: tc.txTimeout, acquireTimeout: 30 * time.Second}
		before := time.Now()
		tctx, cancel, cfg, b := c.boundedTx(WithLockWait(bg, tc.wait))
		dl, ok := tctx.Deadline()
		cancel()
		if b.d != tc.want || len(cfg) != 1 {
			t.Errorf("%+v: bound %v (%d configurers), want %v", tc, b.d, len(cfg), tc.want)
			continue
		}
		var tx neo4j.TransactionConfig
		cfg[0](&tx)
		if tx.Timeout != tc.want {
			t.Errorf("%+v: server-side timeout %v, want %v", tc, tx.Timeout, tc.want)
		}
		if !ok || dl.Before(before.Add(tc.want)) || dl.After(time.Now().Add(tc.want+lockWaitGrace)) {
			t.Errorf("%+v: client deadline %v after the start, want %v + %v", tc, dl.Sub(before), tc.want, lockWaitGrace)
		}
	}
	c := &Client{uri: "bolt://db:7687", txTimeout: 20 * time.Second, acquireTimeout: 30 * time.Second}
	_, cancel, cfg, b := c.boundedTx(bg)
	cancel()
	if b.d != 0 || len(cfg) != 1 {
		t.Errorf("no bound: %+v, %d configurers; want the transaction timeout only", b, len(cfg))
	}
}

// A failure past the bound that is a timeout — the server's, a lock
// wait it ended, the client's deadline — is the bound's
// (*LockWaitError, kind unreachable until its caller judges it); one
// before the bound, or another kind of failure, is classified as ever.
func TestLockWaitEnded(t *testing.T) {
	c := &Client{uri: "bolt://db:7687", txTimeout: 2 * time.Minute, acquireTimeout: 30 * time.Second}
	ctx := context.Background()
	past := txBound{d: 10 * time.Second, until: time.Now().Add(-time.Millisecond)}
	future := txBound{d: 10 * time.Second, until: time.Now().Add(time.Hour)}
	for _, tc := range []struct {
		name string
		b    txBound
		err  error
		want bool
	}{
		{"server timeout", past, &neo4j.Neo4jError{Code: "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"}, true},
		{"lock wait ended", past, &neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.LockClientStopped"}, true},
		{"terminated", past, &neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.Terminated"}, true},
		{"client deadline", past, context.DeadlineExceeded, true},
		{"retries cut", past, &neo4j.TransactionExecutionLimit{Errors: []error{&neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.LockClientStopped"}}}, true},
		{"a query error", past, &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}, false},
		{"before the bound", future, &neo4j.Neo4jError{Code: "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"}, false},
		{"no bound", txBound{}, context.DeadlineExceeded, false},
	} {
		got := c.classifyBounded(ctx, ctx, tc.b, "start run", tc.err)
		var lw *LockWaitError
		if errors.As(got, &lw) != tc.want {
			t.Errorf("%s: %v (%T); LockWaitError %v", tc.name, got, got, tc.want)
		}
		if tc.want && (lw.After != tc.b.d || lw.Op != "start run" || !errors.Is(got, tc.err)) {
			t.Errorf("%s: %+v", tc.name, lw)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := c.classifyBounded(cancelled, cancelled, past, "start run", context.Canceled).(*LockWaitError); ok {
		t.Error("a cancelled run taken for a lock wait")
	}
}

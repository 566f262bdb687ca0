package connector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// MinLockWait is the least time WithLockWait gives a transaction: one
// that waits for no lock held by another runs in milliseconds, and this
// leaves room for a loaded server (a caller whose wait is up, --wait 0
// say, can still take its own steps).
const MinLockWait = 5 * time.Second

type lockWaitKey struct{}

// WithLockWait returns ctx under which every write transaction of the
// client ends within d (at least MinLockWait) of its start, retries
// included: its server-side transaction timeout is at most that — so a
// wait for a lock that another transaction holds (a process paused inside
// one, until the server ends that at its own timeout) ends then, on the
// server too — and the client gives up a moment later. A transaction
// ended by it fails with *LockWaitError. A caller that waits for another
// run for at most some time (release --wait) bounds its lock-taking
// steps with it, so that a stalled holder cannot make it wait past that.
// Reads take no locks and are not bounded by it.
func WithLockWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, max(d, MinLockWait))
}

// LockWaitOf is the bound WithLockWait put on ctx (0: none).
func LockWaitOf(ctx context.Context) time.Duration {
	d, _ := ctx.Value(lockWaitKey{}).(time.Duration)
	return d
}

// lockWaitGrace is how long after a lock-wait bound the client gives up
// when the server has not ended the transaction itself (it checks
// timeouts every few seconds at most).
const lockWaitGrace = 3 * time.Second

// LockWaitError reports a write transaction that did not finish within
// the bound its caller set (WithLockWait): it waited for a lock that
// another transaction held all that time (or the server did not answer).
// Its caller judges which, and whose lock it was; on its own it is a
// timeout (kind unreachable).
type LockWaitError struct {
	URI   string
	Op    string
	After time.Duration // the bound
	Err   error
}

func (e *LockWaitError) Error() string {
	return fmt.Sprintf("connector: %s: not done within %v at neo4j at %s (the caller's wait; a lock it needed was held, or the server did not answer): %v",
		e.Op, e.After, e.URI, e.Err)
}

func (e *LockWaitError) Unwrap() error { return e.Err }

func (*LockWaitError) connectorError() {}

// txBound is a WithLockWait bound on one transaction: d long, ending at
// until (zero values: none).
type txBound struct {
	d     time.Duration
	until time.Time
}

// boundedTx is the per-transaction configuration and client-side context
// of one managed transaction under ctx: txConfig and txContext, or with a
// WithLockWait bound (the shorter of it and the transaction timeout) that
// bound as the server-side timeout and the client's deadline (a grace
// after it).
func (c *Client) boundedTx(ctx context.Context) (context.Context, context.CancelFunc, []func(*neo4j.TransactionConfig), txBound) {
	d := LockWaitOf(ctx)
	if d <= 0 {
		tctx, cancel := c.txContext(ctx)
		return tctx, cancel, c.txConfig(), txBound{}
	}
	if c.txTimeout > 0 {
		d = min(d, c.txTimeout)
	}
	b := txBound{d: d, until: time.Now().Add(d)}
	tctx, cancel := context.WithDeadline(ctx, b.until.Add(lockWaitGrace))
	return tctx, cancel, []func(*neo4j.TransactionConfig){neo4j.WithTxTimeout(d)}, b
}

// ended reports whether err, the failure of a transaction under ctx
// bounded by b, is that bound: past it, the transaction timed out on the
// server (or its lock wait ended by it), or the client gave up.
func (b txBound) ended(ctx context.Context, err error) bool {
	if b.d <= 0 || ctx.Err() != nil || time.Now().Before(b.until) {
		return false
	}
	var lim *neo4j.TransactionExecutionLimit
	if errors.As(err, &lim) {
		return true // the retries of a timed-out attempt, cut at the client's deadline
	}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		return strings.HasPrefix(ne.Code, "Neo.ClientError.Transaction.TransactionTimedOut") ||
			strings.HasSuffix(ne.Code, ".Transaction.LockClientStopped") ||
			strings.HasSuffix(ne.Code, ".Transaction.Terminated")
	}
	var cerr *neo4j.ConnectivityError
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &cerr) && isNetTimeout(cerr.Inner)) || isNetTimeout(err)
}

// classifyBounded is classifyTimed, reporting a transaction that the
// bound b ended as *LockWaitError.
func (c *Client) classifyBounded(ctx, tctx context.Context, b txBound, op string, err error) error {
	if b.ended(ctx, err) {
		return &LockWaitError{URI: c.uri, Op: op, After: b.d, Err: err}
	}
	return c.classifyTimed(ctx, tctx, op, err)
}

package main

import (
	"context"
	"sync"
	"time"
)

// bookkeepingTimeout bounds all a run does against Neo4j after it ended or
// failed — recording the failure, reading the budget left, closing the
// connection — together, so that a run against a dead or stalled server
// exits within its configured timeouts plus this, never waiting again at
// every step.
const bookkeepingTimeout = 5 * time.Second

// afterRun is a run's one bookkeeping deadline, started the first time
// it is asked for (when the run's work ended) and shared by every
// deferred step.
type afterRun struct {
	parent context.Context
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
}

func newAfterRun(ctx context.Context) *afterRun { return &afterRun{parent: ctx} }

// Context is the bookkeeping context: not cancelled with the run (a
// failure is recorded after a signal too), ending bookkeepingTimeout
// after the first call.
func (a *afterRun) Context() context.Context {
	a.once.Do(func() {
		a.ctx, a.cancel = context.WithTimeout(context.WithoutCancel(a.parent), bookkeepingTimeout)
	})
	return a.ctx
}

// Close releases the deadline's timer (deferred first, so it runs last).
func (a *afterRun) Close() {
	if a.cancel != nil {
		a.cancel()
	}
}

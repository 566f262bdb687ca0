package job

import (
	"context"
	"sync"
	"time"
)

// BookkeepingTimeout bounds all a run does against Neo4j after its work
// ended or failed — recording the failure, reading the budget left,
// closing the connection — together, so that a run against a dead or
// stalled server ends within its configured timeouts plus this, never
// waiting again at every step. 15 s, not 5: a live server under load
// (the test suite's own Neo4j beside 2 busy cores) took longer than 5 s to
// record a failed run, and the run then logged a warning and left its
// record to the lease's expiry.
const BookkeepingTimeout = 15 * time.Second

// Bookkeeping is a run's one bookkeeping deadline (Env.Bookkeeping),
// started the first time it is asked for (when the run's work ended) and
// shared by every deferred step.
type Bookkeeping struct {
	parent context.Context
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
}

// NewBookkeeping is the bookkeeping deadline of the run whose context is
// ctx.
func NewBookkeeping(ctx context.Context) *Bookkeeping { return &Bookkeeping{parent: ctx} }

// Context is the bookkeeping context: not cancelled with the run (a
// failure is recorded after a signal too), ending BookkeepingTimeout
// after the first call.
func (b *Bookkeeping) Context() context.Context {
	b.once.Do(func() {
		b.ctx, b.cancel = context.WithTimeout(context.WithoutCancel(b.parent), BookkeepingTimeout)
	})
	return b.ctx
}

// Close releases the deadline's timer (deferred first, so it runs last).
func (b *Bookkeeping) Close() {
	if b.cancel != nil {
		b.cancel()
	}
}

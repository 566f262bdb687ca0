package schedule

import (
	"context"
	"crypto/rand"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
)

// SlotFunc is one scheduled run for the slot starting at slot. Its context is
// cancelled only when the runner's grace period ends during shutdown.
type SlotFunc func(ctx context.Context, slot time.Time) error

// Runner fires a SlotFunc on a Spec. The zero values of Jitter, Grace and
// MaxRuns mean no jitter, no grace (the current run is cancelled at once
// on shutdown) and no limit.
type Runner struct {
	Spec Spec
	// Jitter delays each run by a uniformly random duration in [0, Jitter),
	// so many schedulers on one database do not all start at once.
	Jitter time.Duration
	// Grace is how long the current run may go on after shutdown begins.
	Grace time.Duration
	// MaxRuns stops the runner after that many runs (0: until ctx ends).
	MaxRuns int
	Logger  *slog.Logger
	// Skipped, if non-nil, is called for a slot skipped because the
	// previous run was still going.
	Skipped func(slot time.Time)
	// Done, if non-nil, is called after each run with its error.
	Done func(slot time.Time, err error)
}

// Run fires run until ctx is done (or MaxRuns runs ended), then stops as
// the package documentation describes. It returns after the last run has
// returned.
func (r *Runner) Run(ctx context.Context, run SlotFunc) {
	log := r.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The run's context outlives ctx by the grace period.
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	var busy atomic.Bool
	var runs atomic.Int64
	enough := make(chan struct{})
	var once sync.Once
	c := cron.New(cron.WithLocation(time.UTC))
	c.Schedule(r.Spec.sched, cron.FuncJob(func() {
		slot := r.Spec.Slot(time.Now())
		if ctx.Err() != nil {
			return
		}
		if !busy.CompareAndSwap(false, true) {
			log.Warn("slot skipped: the previous run is still going", "slot", r.Spec.Epoch(slot))
			if r.Skipped != nil {
				r.Skipped(slot)
			}
			return
		}
		defer busy.Store(false)
		if !sleep(ctx, r.jitter()) {
			return
		}
		err := run(runCtx, slot)
		if r.Done != nil {
			r.Done(slot, err)
		}
		if n := runs.Add(1); r.MaxRuns > 0 && n >= int64(r.MaxRuns) {
			once.Do(func() { close(enough) })
		}
	}))
	log.Info("scheduler started", "schedule", r.Spec.String(), "next", r.Spec.Next(time.Now()).Format(time.RFC3339))
	c.Start()
	select {
	case <-ctx.Done():
		log.Info("shutting down: no new run starts", "grace", r.Grace.String())
	case <-enough:
		log.Info("stopping after the last run", "runs", r.MaxRuns)
	}
	stopped := c.Stop() // done when the current run has returned
	select {
	case <-stopped.Done():
	case <-time.After(r.Grace):
		log.Warn("grace period over: interrupting the current run")
		cancelRun()
		<-stopped.Done()
	}
}

func (r *Runner) jitter() time.Duration {
	if r.Jitter <= 0 {
		return 0
	}
	n, err := rand.Int(rand.Reader, big.NewInt(int64(r.Jitter)))
	if err != nil {
		return 0
	}
	return time.Duration(n.Int64())
}

// sleep waits d or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

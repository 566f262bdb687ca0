package schedule

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseNext(t *testing.T) {
	cases := []struct {
		spec, after, next, epoch string
	}{
		{"@every 1h", "2026-11-22T10:17:03Z", "2026-11-22T11:00:00Z", "2026-11-22T10:00Z"},
		{"@every 2s", "2026-11-22T10:17:03.5Z", "2026-11-22T10:17:04Z", "2026-11-22T10:17:02Z"},
		{"@every 24h", "2026-11-22T23:59:59Z", "2026-11-23T00:00:00Z", "2026-11-22"},
		{"*/15 * * * *", "2026-11-22T10:17:03Z", "2026-11-22T10:30:00Z", "2026-11-22T10:17Z"},
		{"@hourly", "2026-11-22T10:17:03Z", "2026-11-22T11:00:00Z", "2026-11-22T10:17Z"},
		{"0 3 * * *", "2026-11-22T10:17:03Z", "2026-11-23T03:00:00Z", "2026-11-22T10:17Z"},
	}
	for _, c := range cases {
		s, err := Parse(c.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.spec, err)
		}
		after := utc(c.after)
		if got := s.Next(after); !got.Equal(utc(c.next)) {
			t.Errorf("%q: Next(%s) = %s, want %s", c.spec, c.after, got, c.next)
		}
		if got := s.Epoch(after); got != c.epoch {
			t.Errorf("%q: Epoch(%s) = %s, want %s", c.spec, c.after, got, c.epoch)
		}
		// A firing's slot is the firing itself; every instant of a slot
		// names the same epoch as its start.
		next := s.Next(after)
		if !s.Slot(next).Equal(next) || s.Epoch(next.Add(999*time.Millisecond)) != s.Epoch(next) {
			t.Errorf("%q: firing %s is not the start of its slot", c.spec, next)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, bad := range []string{"", "@every", "@every 500ms", "@every 1.5s", "@every -1h", "61 * * * *", "* * *", "@sometimes"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// The runner fires once per slot, with consecutive slots, and never runs
// two jobs at once: a job longer than the period makes the next slots
// skipped, not concurrent.
func TestRunnerNoOverlap(t *testing.T) {
	s, _ := Parse("@every 1s")
	var running, maxRunning atomic.Int32
	var mu sync.Mutex
	var slots []time.Time
	var skipped atomic.Int32
	r := &Runner{Spec: s, MaxRuns: 3, Grace: time.Minute, Skipped: func(time.Time) { skipped.Add(1) }}
	r.Run(context.Background(), func(ctx context.Context, slot time.Time) error {
		n := running.Add(1)
		defer running.Add(-1)
		if n > maxRunning.Load() {
			maxRunning.Store(n)
		}
		mu.Lock()
		slots = append(slots, slot)
		first := len(slots) == 1
		mu.Unlock()
		if first {
			time.Sleep(2500 * time.Millisecond) // spans two more firings
		}
		return nil
	})
	if maxRunning.Load() != 1 {
		t.Errorf("%d runs at once", maxRunning.Load())
	}
	if len(slots) != 3 {
		t.Fatalf("%d runs, want 3", len(slots))
	}
	if skipped.Load() < 1 {
		t.Errorf("no slot skipped while the first run took 2.5 periods")
	}
	for i, sl := range slots {
		if !sl.Equal(sl.Truncate(time.Second)) {
			t.Errorf("slot %s is not a whole second", sl)
		}
		if i > 0 && !sl.After(slots[i-1]) {
			t.Errorf("slots not increasing: %v", slots)
		}
	}
}

// On shutdown, a run that ends within the grace period finishes with its
// context intact; one that does not is cancelled when the grace ends.
func TestRunnerGrace(t *testing.T) {
	s, _ := Parse("@every 1s")
	for _, c := range []struct {
		grace     time.Duration
		cancelled bool
	}{{time.Minute, false}, {0, true}} {
		ctx, stop := context.WithCancel(context.Background())
		var sawCancel atomic.Bool
		var ran atomic.Int32
		r := &Runner{Spec: s, Grace: c.grace}
		r.Run(ctx, func(jctx context.Context, _ time.Time) error {
			ran.Add(1)
			stop() // shutdown begins while this run is going
			select {
			case <-jctx.Done():
				sawCancel.Store(true)
			case <-time.After(1500 * time.Millisecond):
			}
			return nil
		})
		if ran.Load() != 1 {
			t.Errorf("grace %v: %d runs, want 1 (no run starts after shutdown)", c.grace, ran.Load())
		}
		if sawCancel.Load() != c.cancelled {
			t.Errorf("grace %v: run cancelled = %v, want %v", c.grace, sawCancel.Load(), c.cancelled)
		}
	}
}

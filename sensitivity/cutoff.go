package sensitivity

import "time"

// cutoff is when a long loop of the sparse schemes must stop: at a
// deadline (zero: none, from Options.TimeBudget) or once a done channel
// is closed (nil: never, from Options.Done), whichever comes first. The
// loops poll it every few kernel steps or edges, so that a library
// caller's cancellation stops them within a block's step, not at the end
// of the run (ErrStopped then discards the partial result).
type cutoff struct {
	at   time.Time
	done <-chan struct{}
}

// newCutoff is the cutoff at start+budget (budget ≤ 0: no deadline) or done.
func newCutoff(start time.Time, budget time.Duration, done <-chan struct{}) cutoff {
	c := cutoff{done: done}
	if budget > 0 {
		c.at = start.Add(budget)
	}
	return c
}

// cancelled reports whether done is closed.
func (c cutoff) cancelled() bool {
	if c.done == nil {
		return false
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// timeUp reports whether the deadline has passed.
func (c cutoff) timeUp() bool { return !c.at.IsZero() && time.Now().After(c.at) }

// passed reports whether the loop must stop: deadline or cancellation.
func (c cutoff) passed() bool { return c.cancelled() || c.timeUp() }

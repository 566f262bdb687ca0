package cost

import (
	"sync"
	"time"
)

// HoldLine tells line (say) at the time at, unless drop is called first:
// a guess made before a model whose own estimate supersedes it, told only
// when the model is late. An empty line is never told.
func HoldLine(say func(string), at time.Time, line string) (drop func()) {
	if line == "" {
		return func() {}
	}
	var mu sync.Mutex
	dropped := false
	t := time.AfterFunc(time.Until(at), func() {
		mu.Lock()
		defer mu.Unlock()
		if !dropped {
			say(line)
			dropped = true
		}
	})
	return func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		dropped = true
	}
}

// GuessDeadline is how long after a command began a guess waits for Δ2's
// model (HoldLine), so that the first estimate comes within about 1.5 s
// of the command's start either way (pgp-strong-2009 loads in 0.25 s).
const GuessDeadline = 1300 * time.Millisecond

// trialRateTiming is how long PerNodeTrialSeconds times the step rate
// (at least three rounds): half the audit's 0.3 s, as the lines it prices
// come before long work.
const trialRateTiming = 150 * time.Millisecond

package sensitivity

import (
	"math"
	"sync"
	"time"
)

// etaSmoother turns the raw guesses of remainingTime into the stable ETA
// Status reports. The raw guess (rate so far × candidates left) jumps as
// the lower bound rises and settles candidates in bulk, and as the rate
// drifts between cheap and expensive edges (issue 34: 37 min, then
// 25–30 min, on one graph). It smooths the predicted finish time
//
//	F ← F + w·(elapsed + raw − F),   w = 1 − e^{−Δt/T},   T = max(elapsed/4, 5 s),
//
// not the remaining time: a guess that stays right keeps F fixed, so the
// ETA counts down one second per second; a jump moves F by a fraction w
// per update (Δt the time since the last one), less the longer the run
// has been going, when the rate so far is the better evidence. A raw 0
// ("no guess") keeps the last F. The result is a guess, never a bound.
type etaSmoother struct {
	mu     sync.Mutex
	have   bool
	finish time.Duration // predicted finish, measured from the start
	last   time.Duration // elapsed at the last update
}

// etaMinConstant is the smallest smoothing time constant T.
const etaMinConstant = 5 * time.Second

// update folds the raw guess at elapsed into F and returns the ETA
// F − elapsed (at least 1 ms while a guess exists, 0 before any).
func (s *etaSmoother) update(elapsed, raw time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case raw > 0 && !s.have:
		s.have, s.finish = true, elapsed+raw
	case raw > 0:
		dt := max(elapsed-s.last, 0)
		tc := max(elapsed/4, etaMinConstant)
		w := -math.Expm1(-float64(dt) / float64(tc))
		s.finish += time.Duration(w * float64(elapsed+raw-s.finish))
	}
	s.last = max(s.last, elapsed)
	if !s.have {
		return 0
	}
	return max(s.finish-elapsed, time.Millisecond)
}

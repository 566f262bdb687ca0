package progressbar

import (
	"slices"
	"sync"
	"time"
)

// Running keeps the progress of the steps a long-lived process is running
// (serve's slots), for its page and metrics to show. It is safe for
// concurrent use; the zero value is ready.
type Running struct {
	mu    sync.Mutex
	steps map[string]*StepState
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// StepState is one step's last report.
type StepState struct {
	Step        string
	Done, Total int
	Started     time.Time // its first report
	Updated     time.Time
}

// Elapsed is how long the step has run, to its last report.
func (s StepState) Elapsed() time.Duration { return s.Updated.Sub(s.Started) }

// Finished says whether the step has done its total, or was ended
// without one (a report of total < 0, as Log takes it).
func (s StepState) Finished() bool { return s.Total > 0 && s.Done >= s.Total || s.Total < 0 }

// ETA extrapolates the step's rate so far (0 when done or unknown).
func (s StepState) ETA() time.Duration {
	if s.Done <= 0 || s.Total <= 0 || s.Done >= s.Total {
		return 0
	}
	return time.Duration(float64(s.Elapsed()) * float64(s.Total-s.Done) / float64(s.Done))
}

// Track returns the progress callback of step: each report replaces the
// step's state. A step tracked again (the next slot's) drops the last
// one's state, and is shown only from its first report: a step that
// reports nothing (Δ2 reused, a dense Δ2 too quick to report) is not
// listed as "0 of ?" for the life of the process.
func (r *Running) Track(step string) func(done, total int) {
	r.mu.Lock()
	if r.steps == nil {
		r.steps = map[string]*StepState{}
	}
	delete(r.steps, step)
	r.mu.Unlock()
	var st *StepState
	return func(done, total int) {
		now := r.now()
		r.mu.Lock()
		defer r.mu.Unlock()
		if st == nil {
			st = &StepState{Step: step, Started: now}
			r.steps[step] = st
		}
		st.Done, st.Total, st.Updated = done, total, now
	}
}

// Steps returns every step's last state, unfinished first, then by name.
func (r *Running) Steps() []StepState {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]StepState, 0, len(r.steps))
	for _, s := range r.steps {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b StepState) int {
		if a.Finished() != b.Finished() {
			if a.Finished() {
				return 1
			}
			return -1
		}
		if a.Step < b.Step {
			return -1
		}
		if a.Step > b.Step {
			return 1
		}
		return 0
	})
	return out
}

func (r *Running) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// State returns step's last state, and whether it is tracked.
func (r *Running) State(step string) (StepState, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.steps[step]; ok {
		return *s, true
	}
	return StepState{}, false
}

package cost

import (
	"fmt"
	"sync"
	"time"
)

// SayPlan says a plan's estimate (Plan on w, its trials priced unless
// w.Timed) before its long steps: when the modelled steps take more than
// long, their sum (ended by tail), then each step's over long — or, once
// the modelling has taken over after (timing trials on a large graph),
// each step's as soon as it is modelled, so that a line comes early. It
// returns what Plan returned; w.Each is replaced.
func SayPlan(w PlanWork, long, after time.Duration, tail string, say func(string)) (PlanEstimate, error) {
	var mu sync.Mutex
	var held []string
	late := false
	flush := func() {
		for _, l := range held {
			say(l)
		}
		held = nil
	}
	timer := time.AfterFunc(after, func() {
		mu.Lock()
		defer mu.Unlock()
		late = true
		flush()
	})
	w.Each = func(st Step) {
		if st.Seconds <= long.Seconds() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		held = append(held, fmt.Sprintf("estimated %s for %s: %s", human(st.Seconds), st.Step, st.Model))
		if late {
			flush()
		}
	}
	e, err := Plan(w)
	timer.Stop()
	mu.Lock()
	defer mu.Unlock()
	defer flush()
	if err != nil || e.Seconds <= long.Seconds() {
		return e, err
	}
	line := Line("the plan's modelled steps", e.Seconds, e.Steps)
	line = line[:len(line)-1] // its closing parenthesis, after the simulations
	if !e.SimulationsModelled() {
		line += fmt.Sprintf("; and up to %d simulated releases, not modelled", e.Simulations)
	}
	say(line + ")" + tail)
	return e, nil
}

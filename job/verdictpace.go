package job

import (
	"runtime"
	"sync"
	"time"
)

// verdictPace wraps the first round's reports of locate's verdict
// forecast (report(done, n), the count restarting each round) and tells
// tell(setup, perTrial, timed) once: the pace of a trial from two reports
// of the first round with two trials a worker or more done between them
// (the marginal pace), and the setup — the time before the first report less its
// trials at that pace — which the forecast pays once (its pool of models
// is built once, forecast.NewTrialPool). cost.TrialSeconds had charged
// the first report's whole time, setup included, to each block of 32
// trials: a block reports at once, so e-mail Enron's forecast said 3 min
// for 200 trials where 400 took 38 s after a setup of 29 s. now is the
// clock (time since the forecast began).
func verdictPace(report func(done, total int), now func() float64, tell func(setup, perTrial float64, timed int)) func(done, total int) {
	var mu sync.Mutex
	workers := max(1, runtime.GOMAXPROCS(0))
	firstDone, last, told := 0, 0, tell == nil
	var firstAt float64
	return func(done, total int) {
		mu.Lock()
		restarted := done < last
		last = done
		var setup, per float64
		tellNow := false
		if !told && !restarted && done > 0 {
			t := now()
			switch {
			case firstDone == 0:
				firstDone, firstAt = done, t
			case done >= firstDone+2*workers && t > firstAt:
				per = (t - firstAt) / float64(done-firstDone)
				setup = max(0, firstAt-float64(firstDone)*per)
				told, tellNow = true, true
			}
		}
		told = told || restarted // a round with one report: no pace to tell
		mu.Unlock()
		if tellNow {
			tell(setup, per, done)
		}
		if report != nil {
			report(done, total)
		}
	}
}

// sinceStart is a clock for verdictPace: seconds since now.
func sinceStart() func() float64 {
	start := time.Now()
	return func() float64 { return time.Since(start).Seconds() }
}

package progressbar

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// LogOptions configure Log. The zero value means the defaults.
type LogOptions struct {
	// Period is the longest time between two lines of a step that is
	// still reporting. Default DefaultLogPeriod.
	Period time.Duration
	// Quiet is how long a step runs before its first line: a quicker
	// step prints nothing. Default DefaultLogQuiet.
	Quiet time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultLogPeriod is the longest silence of a step reporting to a log:
// 25 s, so that a reader that wants a line at least every 30 s gets one
// with room for a busy scheduler (a timer's line came 30.0 s after the one
// before on LFR 2·10⁴ with a period of 30 s).
const DefaultLogPeriod = 25 * time.Second

// HeartbeatPeriods is how many periods a step's log goes on from its
// timer after its last report (Log).
const HeartbeatPeriods = 10

// DefaultLogQuiet is how long a step runs before it is logged.
const DefaultLogQuiet = 5 * time.Second

// Log returns a callback reporting label's progress on w when w is not a
// terminal (a pipe, a file, a collector): plain lines, never a carriage
// return. Its first line comes at the first report once the step has run
// opt.Quiet ("label: started …"), then at least every opt.Period while
// the step runs ("label: 320/20000 (1%), 30s elapsed, ETA 15m0s"), and a
// last line when done reaches total ("label: done 20000/20000 in 16m2s")
// if any line came before it. Between reports lines come from a timer —
// the first at opt.Quiet, then every opt.Period (a phase of the step that
// reports nothing, a slow unit of work: locate's recovery reports only
// its start and its end) — as long as the step has reported within the
// last HeartbeatPeriods periods: a step that stopped reporting (ended by
// an error, in a daemon that lives on) falls silent after that many more
// lines. A step without a total ends with a report of total < 0
// ("label: done 115 in 2s", if any line came before it): without it, its
// timer would go on saying "label: 115 done, 30s elapsed" of a step long
// finished. It is safe for concurrent use; nothing is printed after the
// last line. The step's time counts from its first report.
func Log(w io.Writer, label string, opt LogOptions) func(done, total int) {
	if opt.Period <= 0 {
		opt.Period = DefaultLogPeriod
	}
	if opt.Quiet < 0 {
		opt.Quiet = 0
	} else if opt.Quiet == 0 {
		opt.Quiet = DefaultLogQuiet
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	var mu sync.Mutex
	// The step's clock starts at its first report, not when the callback
	// is made (often before other steps run): the ETA extrapolates the
	// progress made since then.
	var start, last, reported time.Time
	base, done, total := 0, 0, 0
	printed, finished := false, false
	var timer *time.Timer
	var beat func()
	// line prints the step's state now and arms the timer (mu held).
	line := func(now time.Time) {
		last, printed = now, true
		fmt.Fprintln(w, logLine(label, done, total, base, now.Sub(start)))
		if timer != nil {
			timer.Stop()
		}
		timer = time.AfterFunc(opt.Period, beat)
	}
	beat = func() {
		mu.Lock()
		defer mu.Unlock()
		now := opt.Now()
		switch {
		case finished || now.Sub(reported) > HeartbeatPeriods*opt.Period:
			return
		case !printed && now.Sub(start) < opt.Quiet:
			timer = time.AfterFunc(opt.Quiet-now.Sub(start), beat)
			return
		case printed && now.Sub(last) < opt.Period:
			return
		}
		line(now)
	}
	return func(d, t int) {
		mu.Lock()
		defer mu.Unlock()
		now := opt.Now()
		if start.IsZero() {
			start, base = now, d
			if opt.Quiet > 0 { // the first line even if no report comes
				timer = time.AfterFunc(opt.Quiet, beat)
			}
		}
		done, total, reported = d, t, now
		elapsed := now.Sub(start)
		final := t > 0 && d >= t || t < 0
		switch {
		case finished:
			return
		case final:
			finished = true
			if timer != nil {
				timer.Stop()
			}
			switch {
			case !printed:
			case t < 0:
				fmt.Fprintf(w, "%s: done %d in %s\n", label, d, elapsed.Round(time.Second))
			default:
				fmt.Fprintf(w, "%s: done %d/%d in %s\n", label, t, t, elapsed.Round(time.Second))
			}
			return
		case !printed && elapsed < opt.Quiet:
			return
		case printed && now.Sub(last) < opt.Period:
			return
		}
		line(now)
	}
}

// LogLine renders one line of a step that is not done:
// "label: 320/20000 (1%), 30s elapsed, ETA 15m0s" ("ETA ?" before any
// progress), or "label: 320 done, 30s elapsed" without a total.
func LogLine(label string, done, total int, elapsed time.Duration) string {
	return logLine(label, done, total, 0, elapsed)
}

// logLine is LogLine for a step whose clock started at base done.
func logLine(label string, done, total, base int, elapsed time.Duration) string {
	el := elapsed.Round(time.Second)
	if total <= 0 {
		return fmt.Sprintf("%s: %d done, %s elapsed", label, done, el)
	}
	done = min(max(done, 0), total)
	left := "?"
	if done > base {
		left = time.Duration(float64(elapsed) * float64(total-done) / float64(done-base)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s: %d/%d (%d%%), %s elapsed, ETA %s", label, done, total, done*100/total, el, left)
}

// PeriodOptions are Log's options for a period given as text (a Go
// duration, as GRAPHCLOAK_PROGRESS_PERIOD sets it): both the period and
// no quiet start; the defaults when period is not a positive duration.
func PeriodOptions(period string) LogOptions {
	d, err := time.ParseDuration(period)
	if err != nil || d <= 0 {
		return LogOptions{}
	}
	return LogOptions{Period: d, Quiet: -1}
}

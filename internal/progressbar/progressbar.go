// Package progressbar draws the progress of long steps on a terminal: a
// bar with its ETA for a step of known size, a counter per stage for a
// stream whose size is unknown.
package progressbar

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar returns a callback drawing label's progress bar on w, a terminal.
// It is safe for concurrent use and redraws at most ten times a second;
// a total ≤ 0 shows a counter instead of a bar. The line ends when done
// reaches total, or at a report of total < 0 (a step ended without its
// total, as Log takes it), and nothing is drawn after.
func Bar(w io.Writer, label string) func(done, total int) {
	var mu sync.Mutex
	var last, start time.Time
	finished := false
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if start.IsZero() {
			start = time.Now() // the step's first report, not the callback's making
		}
		final := total > 0 && done >= total || total < 0
		if finished || (!final && time.Since(last) < 100*time.Millisecond) {
			return
		}
		last = time.Now()
		fmt.Fprint(w, "\r"+Line(label, done, total)+eta(time.Since(start), done, total))
		if final {
			finished = true
			fmt.Fprintln(w)
		}
	}
}

// Stages returns a callback drawing a counter per stage on w, a terminal,
// each stage on its own line ("pull " and the stage's name), and end,
// which ends the last line.
func Stages(w io.Writer) (progress func(stage string, done int), end func()) {
	var mu sync.Mutex
	current := ""
	progress = func(stage string, done int) {
		mu.Lock()
		defer mu.Unlock()
		if current != "" && stage != current {
			fmt.Fprintln(w)
		}
		current = stage
		fmt.Fprint(w, "\r"+Line("pull "+stage, done, 0))
	}
	end = func() {
		mu.Lock()
		defer mu.Unlock()
		if current != "" {
			fmt.Fprintln(w)
			current = ""
		}
	}
	return progress, end
}

// eta is " ETA 1m20s" from the rate so far (once a step has run a few
// seconds and made progress), else "".
func eta(elapsed time.Duration, done, total int) string {
	if done <= 0 || total <= 0 || done >= total || elapsed < 3*time.Second {
		return ""
	}
	left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
	return " ETA " + left.Round(time.Second).String() + "   "
}

// Line renders "label [#####.....]  50% 5/10", or "label 5" without a
// total.
func Line(label string, done, total int) string {
	if total <= 0 {
		return fmt.Sprintf("%-12s %d", label, done)
	}
	const width = 30
	done = min(max(done, 0), total)
	fill := done * width / total
	return fmt.Sprintf("%-12s [%s%s] %3d%% %d/%d", label, strings.Repeat("#", fill),
		strings.Repeat(".", width-fill), done*100/total, done, total)
}

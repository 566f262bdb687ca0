package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// progress returns a callback drawing a progress bar for a long step
// (pull, Δ2, recovery, write-back) on stderr when stderr is a terminal,
// and a no-op otherwise (pipes, files and tests stay quiet). The callback
// is safe for concurrent use and redraws at most ten times a second; a
// total ≤ 0 shows a counter instead of a bar.
func (g *globalOptions) progress(label string) func(done, total int) {
	if !g.terminal {
		return func(int, int) {}
	}
	var mu sync.Mutex
	var last time.Time
	start := time.Now()
	finished := false
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		final := total > 0 && done >= total
		if finished || (!final && time.Since(last) < 100*time.Millisecond) {
			return
		}
		last = time.Now()
		fmt.Fprint(g.stderr, "\r"+progressLine(label, done, total)+eta(time.Since(start), done, total))
		if final {
			finished = true
			fmt.Fprintln(g.stderr)
		}
	}
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

// progressLine renders "label [#####.....]  50% 5/10".
func progressLine(label string, done, total int) string {
	if total <= 0 {
		return fmt.Sprintf("%-12s %d", label, done)
	}
	const width = 30
	done = min(max(done, 0), total)
	fill := done * width / total
	return fmt.Sprintf("%-12s [%s%s] %3d%% %d/%d", label, strings.Repeat("#", fill),
		strings.Repeat(".", width-fill), done*100/total, done, total)
}

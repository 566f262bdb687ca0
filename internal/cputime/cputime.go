// Package cputime times work by the CPU time the process spends on it
// where that is less than the wall time: what the work takes with the
// machine's cores its own, not under the moment's load (an estimate
// timed by the wall on a machine at load 20 priced e-mail Enron's audit
// at 2 h 5 min; it took 41 min as the load fell).
package cputime

import (
	"runtime"
	"time"
)

// A Clock times one span of work.
type Clock struct {
	wall time.Time
	cpu  float64
}

// Start starts a Clock.
func Start() Clock { return Clock{wall: time.Now(), cpu: Process()} }

// Seconds is the span's time so far: the wall time, or the process's CPU
// time over GOMAXPROCS cores when that is less (where the system tells
// it; Process).
func (c Clock) Seconds() float64 {
	wall := time.Since(c.wall).Seconds()
	if now := Process(); c.cpu >= 0 && now > c.cpu {
		wall = min(wall, (now-c.cpu)/float64(max(1, runtime.GOMAXPROCS(0))))
	}
	return wall
}

package cputime

import (
	"testing"
	"time"
)

// Process counts the process's CPU time, not the wall: 50 ms asleep
// spend almost none of it, and a Clock over them says so (where the
// system tells it).
func TestProcessIsNotWall(t *testing.T) {
	c0 := Process()
	if c0 < 0 {
		t.Skip("no CPU clock here: a Clock times by the wall")
	}
	clock := Start()
	time.Sleep(50 * time.Millisecond)
	c1 := Process()
	if c1 < c0 || c1-c0 > 0.025 {
		t.Errorf("process CPU went %g → %g over a 50 ms sleep", c0, c1)
	}
	if s := clock.Seconds(); s > 0.025 {
		t.Errorf("a Clock over a 50 ms sleep says %g s", s)
	}
}

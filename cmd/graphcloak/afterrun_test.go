package main

import (
	"context"
	"testing"
)

// A run's deferred steps share one bookkeeping deadline: every call returns the same context, with one deadline, and
// it is not cancelled with the run (a failure is recorded after a signal).
func TestAfterRunOneDeadline(t *testing.T) {
	run, cancel := context.WithCancel(context.Background())
	a := newAfterRun(run)
	defer a.Close()
	cancel() // the run was interrupted
	first := a.Context()
	d1, ok1 := first.Deadline()
	second := a.Context()
	d2, ok2 := second.Deadline()
	if first != second || !ok1 || !ok2 || !d1.Equal(d2) {
		t.Fatalf("two steps got contexts %p, %p with deadlines %v (%v), %v (%v): want one shared deadline", first, second, d1, ok1, d2, ok2)
	}
	if first.Err() != nil {
		t.Fatalf("bookkeeping context ended with the run: %v", first.Err())
	}
	a.Close()
	if first.Err() == nil {
		t.Fatal("Close left the bookkeeping context open")
	}
}

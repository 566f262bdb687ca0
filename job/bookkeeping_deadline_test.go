package job_test

import (
	"context"
	"testing"

	. "github.com/graphcloak/graphcloak/job"
)

// A run's deferred steps share one bookkeeping deadline: every call returns the same context, with one deadline, and
// it is not cancelled with the run (a failure is recorded after a signal).
func TestBookkeepingOneDeadline(t *testing.T) {
	run, cancel := context.WithCancel(context.Background())
	b := NewBookkeeping(run)
	defer b.Close()
	cancel() // the run was interrupted
	first := b.Context()
	d1, ok1 := first.Deadline()
	second := b.Context()
	d2, ok2 := second.Deadline()
	if first != second || !ok1 || !ok2 || !d1.Equal(d2) {
		t.Fatalf("two steps got contexts %p, %p with deadlines %v (%v), %v (%v): want one shared deadline", first, second, d1, ok1, d2, ok2)
	}
	if first.Err() != nil {
		t.Fatalf("bookkeeping context ended with the run: %v", first.Err())
	}
	b.Close()
	if first.Err() == nil {
		t.Fatal("Close left the bookkeeping context open")
	}
}

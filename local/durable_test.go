package local

import (
	"errors"
	"sync"
	"testing"
)

// durableRace submits a report (batch A) whose fsync is held by the
// journal's sync hook, and the same report again (batch B) while it is
// held; it returns the order of "A synced" and "B returned" and B's
// result. hookErr is what A's held fsync returns.
func durableRace(t *testing.T, hookErr error) ([]string, Result) {
	nodes, keys := testKeys(2)
	o := testOrder(nodes)
	c := openTest(t, o, keys, t.TempDir(), &clock{t0})
	defer c.Close()
	l := line(t, report(o, keys, "n0", 7))
	var mu sync.Mutex
	var events []string
	record := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	aInSync, bWaiting, bReturned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	c.j.syncHook = func() error {
		held := false
		once.Do(func() { held = true })
		if !held {
			return nil
		}
		close(aInSync)
		select { // B waits for durability (now), or has answered already (before)
		case <-bWaiting:
		case <-bReturned:
		}
		record("A synced")
		return hookErr
	}
	c.waitDurable = func() { close(bWaiting) }
	aDone := make(chan []Result)
	go func() { aDone <- c.Submit([][]byte{l}, 1) }()
	<-aInSync
	var b []Result
	go func() {
		b = c.Submit([][]byte{l}, 1)
		record("B returned")
		close(bReturned)
	}()
	<-aDone
	<-bReturned
	return events, b[0]
}

// A duplicate is acknowledged only once the first copy is durable: the
// retry of a report whose batch is still being fsynced waits for that
// fsync (before: it was answered "duplicate", 200, at once).
func TestDuplicateAckedAfterFsync(t *testing.T) {
	events, b := durableRace(t, nil)
	if len(events) != 2 || events[0] != "A synced" || events[1] != "B returned" {
		t.Errorf("events %v: the duplicate was acknowledged before the first copy was fsynced", events)
	}
	if b.Reason != Duplicate {
		t.Errorf("the retry: %+v, want duplicate", b)
	}
}

// When the first copy's fsync fails, its duplicate is not acknowledged
// either.
func TestDuplicateNotAckedWhenFsyncFails(t *testing.T) {
	_, b := durableRace(t, errors.New("injected fsync failure"))
	if b.Reason != Unavailable {
		t.Errorf("the retry of a report whose fsync failed: %+v, want unavailable", b)
	}
}

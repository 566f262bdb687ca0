//go:build unix

package sensor

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// A sensor locks its odometer file itself (flock on the resolved file), so
// a report leaves no lock file beside it; a "NAME.lock" an earlier version
// made is still locked, so a sensor of that version holding it makes this
// one wait.
func TestOdometerLockHiddenAndLegacyHonoured(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	s := r.sensor("n1", Policy{Alpha: 1, SigmaFloor: 1, MaxEpsilonPerDay: 100})
	if _, err := s.Report(env, 21.5); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"n1.odometer"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("beside the odometer after a report: %q, want %q", names, want)
	}

	legacy, err := os.OpenFile(s.Odometer+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	if err := syscall.Flock(int(legacy.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.Report(env, 21.5); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("a report went ahead while an earlier version held %s.lock: %v", s.Odometer, err)
	case <-time.After(200 * time.Millisecond):
	}
	syscall.Flock(int(legacy.Fd()), syscall.LOCK_UN)
	if err := <-done; err != nil {
		t.Errorf("the report once the lock was free: %v", err)
	}
}

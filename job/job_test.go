package job_test

import (
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"

	. "github.com/graphcloak/graphcloak/job"
)

// publication is an in-memory model of one release run publishing an
// epoch, in the order Execute takes: run record "running" (with a
// lease) → ledger charged → values stored → nodes written → succeeded.
// crashAt stops it after that many steps, as a killed process would; the
// record left behind is what the next run of the epoch finds.
type publication struct {
	rec     *connector.RunRecord
	charged bool
	written int // nodes written
}

const nodes = 3

func publish(crashAt int, leaseEnd time.Time) *publication {
	p := &publication{}
	steps := []func(){
		func() {
			p.rec = &connector.RunRecord{RunID: "r1", Status: connector.StatusRunning, WriteProperty: "v", LeaseExpiresAt: leaseEnd}
		},
		func() { p.charged = true },
		func() { p.rec.ValuesStored = true },
	}
	for i := 0; i < nodes; i++ {
		steps = append(steps, func() { p.written++ })
	}
	steps = append(steps, func() { p.rec.Status = connector.StatusSucceeded })
	for i, s := range steps {
		if i == crashAt {
			return p
		}
		s()
	}
	return p
}

// Crash at every step of a publication; the next run of the epoch, once
// the dead run's lease has expired, takes the one documented step: start
// afresh when nothing was charged, start afresh and meet the ledger's
// refusal (exit 7, no second draw) when charged but not stored, resume
// with the stored values when they were stored, nothing when it
// succeeded. While the lease still runs it waits. Never a second draw of
// a charged epoch that stored its values.
func TestNextAfterACrashAtEveryStep(t *testing.T) {
	now := time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC)
	total := 3 + nodes + 1
	for crash := 0; crash <= total; crash++ {
		p := publish(crash, now.Add(time.Minute))
		// The process died: the lease runs out (the next StartRun marks it abandoned).
		after := now.Add(2 * time.Minute)
		if p.rec != nil && p.rec.Status == connector.StatusRunning {
			if got := NextReleaseStep(p.rec, "v", now); got != Wait && p.rec.ValuesStored {
				t.Errorf("crash after %d steps, lease live: %v, want wait", crash, got)
			}
			p.rec.Status = connector.StatusAbandoned
		}
		got := NextReleaseStep(p.rec, "v", after)
		var want ReleaseStep
		switch {
		case crash == total:
			want = AlreadyPublished
		case p.rec != nil && p.rec.ValuesStored:
			want = Resume
		default:
			want = Fresh // the ledger refuses the charge when p.charged: exit 7
		}
		if got != want {
			t.Errorf("crash after %d steps (charged %v, stored %v, %d written): %v, want %v",
				crash, p.charged, p.rec != nil && p.rec.ValuesStored, p.written, got, want)
		}
		if p.charged && p.rec.ValuesStored && got == Fresh {
			t.Errorf("crash after %d steps: a charged epoch with stored values would be drawn again", crash)
		}
	}
}

// Every recorded status, with and without stored values and a live
// lease, maps to one step; another write property or an overwritten
// release is never republished.
func TestNextEveryState(t *testing.T) {
	now := time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC)
	live, dead := now.Add(time.Minute), now.Add(-time.Minute)
	rec := func(status string, stored bool, lease time.Time, prop string) *connector.RunRecord {
		return &connector.RunRecord{Status: status, ValuesStored: stored, LeaseExpiresAt: lease, WriteProperty: prop}
	}
	cases := []struct {
		prev *connector.RunRecord
		want ReleaseStep
	}{
		{nil, Fresh},
		{rec(connector.StatusFailed, false, dead, "v"), Fresh},
		{rec(connector.StatusAbandoned, false, dead, "v"), Fresh},
		{rec(connector.StatusRunning, false, live, "v"), Fresh}, // not stored: the ledger decides
		{rec(connector.StatusRunning, true, live, "v"), Wait},
		{rec(connector.StatusRunning, true, live, "other"), Wait},
		{rec(connector.StatusRunning, true, dead, "v"), Resume},
		{rec(connector.StatusFailed, true, dead, "v"), Resume},
		{rec(connector.StatusInterrupted, true, dead, "v"), Resume},
		{rec(connector.StatusAbandoned, true, dead, "v"), Resume},
		{rec(connector.StatusSucceeded, true, dead, "v"), AlreadyPublished},
		{rec(connector.StatusSucceeded, false, dead, "v"), AlreadyPublished}, // before values were stored
		{rec(connector.StatusSucceeded, true, dead, "other"), OtherProperty},
		{rec(connector.StatusSuperseded, true, dead, "v"), Overwritten},
		{rec(connector.StatusFailed, true, dead, "other"), OtherProperty},
	}
	for _, c := range cases {
		if got := NextReleaseStep(c.prev, "v", now); got != c.want {
			t.Errorf("%+v: %v, want %v", c.prev, got, c.want)
		}
	}
}

package job

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// HolderGoneError: the epoch is charged and no run stored its values,
// and none can now: the last run of the epoch (Holder, as found) has
// ended, or was running when planned and ended while this run waited for
// it (this run holds the scope since). Holding the scope marked that run
// abandoned had its lease expired, and a run no longer "running" can store
// nothing (its record refuses the update, *connector.LeaseLostError), so
// the caller's *ChargedError (kind charged) is final. It wraps the ledger's
// privacy.ErrAlreadyCharged.
type HolderGoneError struct {
	Holder connector.RunRecord
	Err    error
}

func (e *HolderGoneError) Error() string {
	how := "status " + e.Holder.Status
	if e.Holder.Status == connector.StatusRunning {
		how = "it failed, or its lease expired at " + e.Holder.LeaseExpiresAt.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("no run stored its values and none can now: the last run of the epoch, %s, ended without storing them (%s): %v",
		e.Holder.RunID, how, e.Err)
}

func (e *HolderGoneError) Unwrap() error { return e.Err }

// LeaseLostAfterChargeError is HolderGoneError seen from the holder: this run charged
// the epoch and, before it stored its values, lost its lease — it renewed
// nothing for its whole lease (its process paused, swapped out or cut off
// from the database), so another run took it for dead and marked its
// record abandoned, and a run no longer "running" stores nothing (Lost,
// also when the transaction it was paused in failed for it). None of the
// values it drew is published, nor ever can be (they were never stored);
// the charge stands, and no run can publish the epoch any more (the runs
// of the epoch are refused it: HolderGoneError). Kind charged.
type LeaseLostAfterChargeError struct {
	Epoch string
	Lost  *connector.LeaseLostError
}

func (e *LeaseLostAfterChargeError) Error() string { return e.text().Error() }

// RenderText is its text naming the parameters as name does.
func (e *LeaseLostAfterChargeError) RenderText(name func(errkind.Param) string) string {
	return e.text().RenderText(name)
}

func (e *LeaseLostAfterChargeError) text() errkind.Renderer {
	l := e.Lost
	// The arguments: 1 the lease, 2 the epoch parameter, 3 the run, 4 the
	// epoch, 5 the record's status, 6 when the lease expired.
	how := "its record is %[5]q: another run took it over"
	switch {
	case l.Status == connector.StatusAbandoned && !l.LeaseExpiresAt.IsZero():
		how = "it renewed nothing for its whole %[1]s (the process was paused or cut off from the database), was taken for dead after its lease expired at %[6]s and its record marked abandoned"
	case l.Status == connector.StatusAbandoned:
		how = "it renewed nothing for its whole %[1]s (the process was paused or cut off from the database), was taken for dead once its lease expired and its record marked abandoned"
	case l.Status == "":
		how = "its run record is gone"
	}
	return errkind.Errorf("run %[3]s lost its lease before storing its values: "+how+". "+
		"None of the values it drew is published, nor can be (they were never stored). "+
		"Epoch %[4]q stays charged (its ρ is spent; an epoch is never drawn twice) and no run can publish it now: "+
		"its data can be published only under another %[2]s, at a new charge of ρ (a scheduled release simply goes on with its next slot); "+
		"a longer %[1]s keeps a paused or slow process from being taken for dead",
		ParamLease, ParamEpoch, l.RunID, e.Epoch, l.Status, l.LeaseExpiresAt.UTC().Format(time.RFC3339)).(errkind.Renderer)
}

func (e *LeaseLostAfterChargeError) Unwrap() error    { return e.Lost }
func (*LeaseLostAfterChargeError) Kind() errkind.Kind { return errkind.Charged }

// HolderStalledError: this release waited its whole --wait (Wait) for the
// run that holds its epoch, Holder, whose lease had expired, and that
// run's record stayed locked by a transaction of its own that has not
// ended: its process is paused (SIGSTOP, a frozen or swapped-out host) or
// cut off inside it, and the server ends such a transaction only at that
// run's transaction timeout. It was not taken for dead — taking it for
// dead marks its record abandoned, which takes that lock — so it can
// still store and publish its values when it goes on: the epoch (charged,
// when Charged; perhaps, otherwise) needs no new charge, and the same
// release run again once that run ends reports its outcome. Holder is nil
// when the lock was not the epoch's run's (another transaction on the
// scope's records, or on the schema). Err is the *connector.LockWaitError
// of the step that waited. Kind busy: exit 8, like any holder that
// outlasts --wait.
type HolderStalledError struct {
	Scope, Epoch string
	Holder       *connector.RunRecord
	Charged      bool
	Wait         time.Duration
	Err          error
}

func (e *HolderStalledError) Error() string { return e.text().Error() }

// RenderText is its text naming the parameters as name does.
func (e *HolderStalledError) RenderText(name func(errkind.Param) string) string {
	return e.text().RenderText(name)
}

func (e *HolderStalledError) text() errkind.Renderer {
	h := e.Holder
	if h == nil {
		return errkind.Errorf("gave up after %s %v: a lock this release needed to start (on the run records of scope %q, or the database's schema) "+
			"was held all that time by a transaction that has not ended (a run's process may be paused inside it; the server ends it at that run's transaction timeout): re-run once it ends",
			ParamWait, e.Wait, e.Scope).(errkind.Renderer)
	}
	// The arguments: 1 --wait, 2 its value, 3 the holder, 4 the epoch, 5
	// the scope, 6 its lease expiry, 7 --epoch.
	what := "which may have charged epoch %[4]q of scope %[5]q"
	if e.Charged {
		what = "which charged epoch %[4]q of scope %[5]q"
	}
	return errkind.Errorf("gave up after %[1]s %[2]v waiting for run %[3]s, "+what+": it still holds its run record. "+
		"Its lease expired at %[6]s, but one of its own transactions has kept the record locked all that time "+
		"(its process may be paused inside it; the server ends that transaction at the run's transaction timeout), so it was not taken for dead "+
		"and may still store and publish its values: the epoch needs no new charge. Re-run with the same %[7]s once that run ends to get its outcome (no new charge)",
		ParamWait, e.Wait, h.RunID, e.Epoch, e.Scope, h.LeaseExpiresAt.UTC().Format(time.RFC3339), ParamEpoch).(errkind.Renderer)
}

func (e *HolderStalledError) Unwrap() error    { return e.Err }
func (*HolderStalledError) Kind() errkind.Kind { return errkind.Busy }

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

// LeaseLostError is HolderGoneError seen from the holder: this run charged
// the epoch and, before it stored its values, lost its lease — it renewed
// nothing for its whole lease (its process paused, swapped out or cut off
// from the database), so another run took it for dead and marked its
// record abandoned, and a run no longer "running" stores nothing (Lost,
// also when the transaction it was paused in failed for it). None of the
// values it drew is published, nor ever can be (they were never stored);
// the charge stands, and no run can publish the epoch any more (the runs
// of the epoch are refused it: HolderGoneError). Kind charged.
type LeaseLostError struct {
	Epoch string
	Lost  *connector.LeaseLostError
}

func (e *LeaseLostError) Error() string { return e.text().Error() }

// RenderText is its text naming the parameters as name does.
func (e *LeaseLostError) RenderText(name func(errkind.Param) string) string {
	return e.text().RenderText(name)
}

func (e *LeaseLostError) text() errkind.Renderer {
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

func (e *LeaseLostError) Unwrap() error    { return e.Lost }
func (*LeaseLostError) Kind() errkind.Kind { return errkind.Charged }

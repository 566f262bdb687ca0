package job

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/connector"
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

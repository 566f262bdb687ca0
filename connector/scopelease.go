package connector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// ScopeLeaseLabel marks the one node per privacy scope that says which
// release run holds the scope: (:GraphcloakScopeLease {scope, owner}).
//
// The lease is the owner run's own lease: the scope is held while the
// owner's record is "running" with an unexpired leaseExpiresAt (renewed by
// its heartbeat), and free as soon as the owner succeeds, fails, or dies
// and its lease runs out. So two releases of one scope never run at once,
// and a crashed run never blocks its scope for longer than its lease.
const ScopeLeaseLabel = "GraphcloakScopeLease"

// ScopeBusyError reports a scope held by another live release run.
type ScopeBusyError struct {
	Scope, Holder string
	Until         time.Time // the holder's lease expiry (database clock)
}

func (e *ScopeBusyError) Error() string {
	return fmt.Sprintf("scope %q is held by release run %s (its lease runs until %s)",
		e.Scope, e.Holder, e.Until.UTC().Format(time.RFC3339))
}

func (*ScopeBusyError) connectorError() {}

// EpochPublishedError reports that another release run already published
// the epoch a new run was about to start: the caller re-publishes that
// run's values (FindRelease) instead of charging the epoch again.
type EpochPublishedError struct {
	Scope, Epoch, RunID string
}

func (e *EpochPublishedError) Error() string {
	return fmt.Sprintf("epoch %q of scope %q was published by release run %s", e.Epoch, e.Scope, e.RunID)
}

func (*EpochPublishedError) connectorError() {}

// errScopeBusy rolls a claiming transaction back; the caller turns it
// into the *ScopeBusyError or *EpochPublishedError it recorded.
var errScopeBusy = errors.New("scope busy")

// publishedRun is the Cypher test that release run r's values can be
// re-published: stored durably, or the run succeeded.
const publishedRun = "(coalesce(r.valuesStored, false) OR r.status IN ['succeeded', 'superseded'])"

// checkEpochFree fails with errScopeBusy, setting published, when a
// release run of (scope, epoch) other than runID already published. Run
// right after claimScope in the same transaction, it closes the gap
// between a caller's FindRelease and its claim: a run that published and
// ended in between released the scope only after storing its values, and
// this read, made under the scope's lock, sees them.
func checkEpochFree(ctx context.Context, tx neo4j.ManagedTransaction, scope, epoch, runID string, published **EpochPublishedError) error {
	res, err := tx.Run(ctx, "MATCH (r:"+RunRecordLabel+" {command: 'release', scope: $scope, epoch: $epoch}) "+
		"WHERE r.runId <> $id AND "+publishedRun+" RETURN r.runId LIMIT 1",
		map[string]any{"scope": scope, "epoch": epoch, "id": runID})
	if err != nil {
		return err
	}
	if !res.Next(ctx) {
		return res.Err()
	}
	id, _ := res.Record().Values[0].(string)
	*published = &EpochPublishedError{Scope: scope, Epoch: epoch, RunID: id}
	return errScopeBusy
}

// claimScope makes runID the owner of scope inside tx, unless another run
// holds it (then busy is set and errScopeBusy returned, which rolls tx
// back). Setting claimedAt first takes the node's write lock, so the
// owner read after it is the latest committed one: of two concurrent
// claims, the second waits for the first to commit and then sees its
// owner. MERGE is race-free under the scope's uniqueness constraint. An
// owner taken over while still "running" (its lease expired) is marked
// abandoned in the same statement, so that it can store nothing after —
// also when its lease ran out after StartRun's sweep looked.
func claimScope(ctx context.Context, tx neo4j.ManagedTransaction, scope, runID string, busy **ScopeBusyError) error {
	res, err := tx.Run(ctx,
		"MERGE (l:"+ScopeLeaseLabel+" {scope: $scope}) SET l.claimedAt = datetime() "+
			"WITH l OPTIONAL MATCH (h:"+RunRecordLabel+" {runId: l.owner}) "+
			"WITH l, h, (h IS NOT NULL AND h.runId <> $id AND h.status = 'running' AND h.leaseExpiresAt > datetime()) AS held "+
			"FOREACH (_ IN CASE WHEN held THEN [] ELSE [1] END | SET l.owner = $id) "+
			"FOREACH (_ IN CASE WHEN h IS NOT NULL AND h.runId <> $id AND h.status = 'running' AND NOT held THEN [1] ELSE [] END | "+
			"SET h.status = 'abandoned', h.abandonedAt = datetime()) "+
			"RETURN held, h.runId, h.leaseExpiresAt",
		map[string]any{"scope": scope, "id": runID})
	if err != nil {
		return err
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return err
	}
	if held, _ := rec.Values[0].(bool); held {
		holder, _ := rec.Values[1].(string)
		until, _ := rec.Values[2].(time.Time)
		*busy = &ScopeBusyError{Scope: scope, Holder: holder, Until: until}
		return errScopeBusy
	}
	return nil
}

package connector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// DefaultLease is how long a running run stays alive without a heartbeat.
// A run sends one every lease/3, so a live run is never taken for dead
// unless the database is unreachable for two heartbeats in a row.
const DefaultLease = 2 * time.Minute

// Run is a run in progress: its (:GraphcloakRun) record is "running" and
// holds a lease (leaseExpiresAt, the database's clock) that a background
// heartbeat extends every lease/3 until Succeed or Fail. A process that
// dies stops renewing; the next StartRun of its command and scope then
// marks the record "abandoned" (AbandonExpired), so no crashed run stays
// "running" once another takes its place.
//
// Typical use:
//
//	run, err := c.StartRun(ctx, connector.RunRecord{RunID: id, Command: "release", …}, 0)
//	if err != nil { … }
//	defer func() { if err != nil { run.Fail(ctx, err) } }()
//	… write with WriteOptions{RunID: run.ID(), BindProperty: prop} …
//	run.Record.NodePropertiesWritten = st.NodePropertiesWritten
//	err = run.Succeed(ctx)
//
// Record is the caller's copy: fill in results before Succeed. Run is safe
// for use by one goroutine plus its own heartbeat.
type Run struct {
	Record RunRecord

	c     *Client
	db    string
	lease time.Duration

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	hbErr    error // the first heartbeat failure
}

// LeaseLostError reports a run whose record is no longer "running" under
// this process (its lease expired and another run marked it abandoned, or
// it was superseded). The process should stop writing.
type LeaseLostError struct {
	RunID  string
	Status string // the status found, "" if the record is gone
	// LeaseExpiresAt is when the run's lease ran out, by its record (the
	// database's clock; zero when the record is gone or has none): a run
	// abandoned was taken for dead after it.
	LeaseExpiresAt time.Time
}

func (e *LeaseLostError) Error() string {
	msg := fmt.Sprintf("connector: run %q lost its lease (record status %q)", e.RunID, e.Status)
	if !e.LeaseExpiresAt.IsZero() {
		msg += "; its lease expired at " + e.LeaseExpiresAt.UTC().Format(time.RFC3339)
	}
	return msg
}

// leaseLost is the *LeaseLostError of run id whose record has status st
// (nil or "" when it is gone) and lease expiry exp (a driver value, nil
// when unset).
func leaseLost(id string, st, exp any) *LeaseLostError {
	e := &LeaseLostError{RunID: id}
	e.Status, _ = st.(string)
	if t, ok := exp.(time.Time); ok {
		e.LeaseExpiresAt = t.UTC()
	}
	return e
}

// ownedWrite runs write, a write of run runID's (database db) that stores
// nothing unless the run is still "running", and tells a failure that
// comes from a lost lease as one. write failing otherwise — a transaction
// the server terminated, a lock wait that timed out, a connection lost or
// timed out — is judged by the run record, read afresh (a read takes no
// lock, so a server that answers answers at once; one that does not is
// given up after ownerCheckTimeout, and the failure stands): a run no
// longer "running" lost its lease, and the failure is that
// (*LeaseLostError), not a timeout. That is how a process paused inside
// one of its transactions learns it when it wakes: the server ended the
// transaction at its timeout, another run marked the record abandoned as
// soon as the transaction's lock was released, and the commit the process
// sends on waking fails (or its wait for the commit's answer has timed
// out meanwhile). A run still "running" whose transaction the
// server ended at its timeout (paused inside it, with nobody taking the
// run for dead meanwhile) still holds its lease: write is tried once
// more, in a new transaction. orStored: write is also allowed once the
// run's values are stored, whatever its status (StoreReleaseValues).
func (c *Client) ownedWrite(ctx context.Context, db, runID string, orStored bool, write func() error) error {
	for try := 0; ; try++ {
		err := write()
		if err == nil || ctx.Err() != nil || errors.As(err, new(*LeaseLostError)) || errors.As(err, new(*RunNotFoundError)) {
			return err
		}
		rctx, cancel := context.WithTimeout(ctx, ownerCheckTimeout)
		rec, rerr := c.ReadRun(rctx, db, runID)
		cancel()
		switch {
		case errors.As(rerr, new(*RunNotFoundError)):
			return &LeaseLostError{RunID: runID}
		case rerr != nil:
			return err // the record cannot be read either: the failure stands
		case rec.Status != StatusRunning && !(orStored && rec.ValuesStored):
			return &LeaseLostError{RunID: runID, Status: rec.Status, LeaseExpiresAt: rec.LeaseExpiresAt}
		case try > 0 || !transactionTimedOut(err):
			return err
		}
	}
}

// ownerCheckTimeout bounds ownedWrite's read of the run record after a
// failed write: one node read by its key, at once on a server that
// answers; on a stalled one the write's failure is reported without
// waiting for another transaction timeout.
const ownerCheckTimeout = 5 * time.Second

// transactionTimedOut reports whether err is the server's termination of
// a transaction that outlived its timeout (not a lock wait that ended by
// it: that lock's holder is still there).
func transactionTimedOut(err error) bool {
	var ne *neo4j.Neo4jError
	return errors.As(err, &ne) && strings.HasPrefix(ne.Code, "Neo.ClientError.Transaction.TransactionTimedOut")
}

func (*LeaseLostError) connectorError() {}

// RunStateError reports a run record that is not in a state the
// operation accepts (e.g. resuming a run that is still alive).
type RunStateError struct {
	RunID, Status, Op string
}

func (e *RunStateError) Error() string {
	return fmt.Sprintf("connector: cannot %s run %q: its status is %q", e.Op, e.RunID, e.Status)
}

func (*RunStateError) connectorError() {}

// leaseProps are set by the database's clock on every start, resume and
// heartbeat.
const leaseSet = "r.heartbeatAt = datetime(), r.leaseExpiresAt = datetime() + duration({milliseconds: $leaseMs})"

// claimForStart does StartRun's checks inside its transaction: it
// abandons the expired runs of rec's command and scope and, for a release
// of a scope, claims the scope (else sets *busy) and checks its epoch is
// not published (else sets *published).
func claimForStart(ctx context.Context, tx neo4j.ManagedTransaction, rec RunRecord, busy **ScopeBusyError, published **EpochPublishedError) error {
	if _, err := abandonExpired(ctx, tx, rec.Command, rec.Scope); err != nil {
		return err
	}
	if rec.Command == "release" && rec.Scope != "" {
		if err := claimScope(ctx, tx, rec.Scope, rec.RunID, busy); err != nil {
			return err
		}
		if rec.Epoch != "" {
			if err := checkEpochFree(ctx, tx, rec.Scope, rec.Epoch, rec.RunID, published); err != nil {
				return err
			}
		}
	}
	return nil
}

// StartRun creates the run record rec.RunID with status "running", a
// lease (0 means DefaultLease) and attempts = 1, and starts its heartbeat.
// In the same transaction it first marks the expired running records of
// its own command and scope "abandoned" (AbandonExpired) — never another
// scope's, whose record a paused process may keep locked; under
// WithLockWait (a release waiting for the run that holds its scope) that
// transaction ends within the bound (*LockWaitError). A run id that
// already has a record is refused (*RunStateError): use ResumeRun to take
// over a failed or abandoned run. A release run of a scope that another live run holds is
// refused with *ScopeBusyError, and one of an epoch that another run
// already published with *EpochPublishedError.
func (c *Client) StartRun(ctx context.Context, rec RunRecord, lease time.Duration) (*Run, error) {
	if rec.RunID == "" {
		return nil, &ArgumentError{Param: "run id", Reason: "must not be empty"}
	}
	if lease <= 0 {
		lease = DefaultLease
	}
	db, err := c.db(rec.Database)
	if err != nil {
		return nil, err
	}
	rec.Database, rec.Status, rec.Attempts = db, StatusRunning, 1
	if rec.StartedAt.IsZero() {
		rec.StartedAt = time.Now().UTC()
	}
	props, err := rec.properties()
	if err != nil {
		return nil, err
	}
	dropLease(props)
	if err := c.ensureConstraints(ctx, db); err != nil {
		return nil, err
	}
	var busy *ScopeBusyError
	var published *EpochPublishedError
	created, err := runWrite(ctx, c, db, "start run", func(ctx context.Context, tx neo4j.ManagedTransaction) (bool, error) {
		if err := claimForStart(ctx, tx, rec, &busy, &published); err != nil {
			return false, err
		}
		res, err := tx.Run(ctx, "OPTIONAL MATCH (old:"+RunRecordLabel+" {runId: $id}) "+
			"CALL { WITH old WITH old WHERE old IS NULL "+
			"CREATE (r:"+RunRecordLabel+" {runId: $id}) SET r += $props, "+leaseSet+" RETURN count(r) AS created } "+
			"RETURN created, old.status AS status",
			map[string]any{"id": rec.RunID, "props": props, "leaseMs": lease.Milliseconds()})
		if err != nil {
			return false, err
		}
		r, err := res.Single(ctx)
		if err != nil {
			return false, err
		}
		if n, _ := r.Values[0].(int64); n != 1 {
			st, _ := r.Values[1].(string)
			return false, &RunStateError{RunID: rec.RunID, Status: st, Op: "start (the run id exists)"}
		}
		return true, nil
	})
	if busy != nil {
		return nil, busy
	}
	if published != nil {
		return nil, published
	}
	var state *RunStateError
	if errors.As(err, &state) {
		return nil, state
	}
	if err != nil || !created {
		return nil, err
	}
	return c.startHeartbeat(rec, db, lease), nil
}

// ResumeRun takes over the run record runID when it is "failed",
// "abandoned", or "running" with an expired lease: status "running" again
// with a fresh lease, attempts + 1, error cleared; it returns the record
// as stored (RunRecord.ValuesStored says whether its released values can
// be re-published). A run that is still alive, succeeded or superseded is
// refused with *RunStateError; an unknown id with *RunNotFoundError.
func (c *Client) ResumeRun(ctx context.Context, database, runID string, lease time.Duration) (*Run, error) {
	if lease <= 0 {
		lease = DefaultLease
	}
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	if err := c.ensureConstraints(ctx, db); err != nil {
		return nil, err
	}
	var busy *ScopeBusyError
	recs, err := runWrite(ctx, c, db, "resume run", func(ctx context.Context, tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		res, err := tx.Run(ctx, "MATCH (r:"+RunRecordLabel+" {runId: $id}) RETURN r.command, r.scope", map[string]any{"id": runID})
		if err != nil {
			return nil, err
		}
		if head, err := res.Collect(ctx); err != nil {
			return nil, err
		} else if len(head) == 1 {
			if cmd, scope := head[0].Values[0], head[0].Values[1]; cmd == "release" && scope != nil && scope != "" {
				if err := claimScope(ctx, tx, scope.(string), runID, &busy); err != nil {
					return nil, err
				}
			}
		}
		res, err = tx.Run(ctx, "MATCH (r:"+RunRecordLabel+" {runId: $id}) "+
			"WITH r, r.status AS before, (r.status IN ['failed', 'interrupted', 'abandoned'] OR "+
			"(r.status = 'running' AND coalesce(r.leaseExpiresAt, r.updatedAt + duration('PT10M')) < datetime())) AS ok "+
			"CALL { WITH r, ok WITH r WHERE ok SET r.status = 'running', r.attempts = coalesce(r.attempts, 1) + 1, "+
			"r.updatedAt = datetime(), "+leaseSet+" REMOVE r.error, r.finishedAt RETURN count(r) AS resumed } "+
			"RETURN resumed, before, properties(r) AS p",
			map[string]any{"id": runID, "leaseMs": lease.Milliseconds()})
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if busy != nil {
		return nil, busy
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, &RunNotFoundError{RunID: runID, Database: db}
	}
	if n, _ := recs[0].Values[0].(int64); n != 1 {
		st, _ := recs[0].Values[1].(string)
		return nil, &RunStateError{RunID: runID, Status: st, Op: "resume"}
	}
	p, _ := recs[0].Values[2].(map[string]any)
	rec := *runRecordFrom(p)
	rec.Database = db
	return c.startHeartbeat(rec, db, lease), nil
}

func (c *Client) startHeartbeat(rec RunRecord, db string, lease time.Duration) *Run {
	r := &Run{Record: rec, c: c, db: db, lease: lease, stop: make(chan struct{}), done: make(chan struct{})}
	// Stopping cancels a heartbeat in flight: a run that ends against a
	// stalled server does not wait up to lease/3 for it.
	hbCtx, cancelHB := context.WithCancel(context.Background())
	go func() {
		<-r.stop
		cancelHB()
	}()
	go func() {
		defer close(r.done)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(hbCtx, lease/3)
				err := r.Heartbeat(ctx)
				cancel()
				var lost *LeaseLostError
				if errors.As(err, &lost) {
					return
				}
			}
		}
	}()
	return r
}

// ID returns the run id.
func (r *Run) ID() string { return r.Record.RunID }

// Lease returns the run's lease duration.
func (r *Run) Lease() time.Duration { return r.lease }

// Heartbeat extends the lease now (the background heartbeat calls it every
// lease/3). It returns *LeaseLostError when the record is no longer
// "running" (then the heartbeat stops); other errors are transient and
// also remembered for Err.
func (r *Run) Heartbeat(ctx context.Context) error {
	recs, err := r.c.exec(ctx, r.db, "run heartbeat",
		"OPTIONAL MATCH (r:"+RunRecordLabel+" {runId: $id}) "+
			"CALL { WITH r WITH r WHERE r.status = 'running' SET "+leaseSet+" RETURN count(r) AS renewed } "+
			"RETURN renewed, r.status, r.leaseExpiresAt",
		map[string]any{"id": r.Record.RunID, "leaseMs": r.lease.Milliseconds()})
	if err == nil {
		if v := recs[0].Values; v[0] != int64(1) {
			err = leaseLost(r.Record.RunID, v[1], v[2])
		}
	}
	if err != nil {
		r.mu.Lock()
		if r.hbErr == nil {
			r.hbErr = err
		}
		r.mu.Unlock()
	}
	return err
}

// Err returns the first heartbeat failure, or nil.
func (r *Run) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hbErr
}

// Update stores the current Record (status stays "running") — e.g. the
// release id and metadata as soon as they are known. A run no longer
// "running" (taken for dead: abandoned once its lease expired) is refused
// with *LeaseLostError and nothing is stored.
func (r *Run) Update(ctx context.Context) error {
	return r.finish(ctx, StatusRunning, "update run record")
}

// Succeed stops the heartbeat and stores Record with status "succeeded"
// and a finish time — unless a later run superseded this one meanwhile,
// whose "superseded" status is kept. Call it last, after every write.
func (r *Run) Succeed(ctx context.Context) error {
	r.stopHeartbeat()
	r.Record.FinishedAt = time.Now().UTC()
	return r.finish(ctx, StatusSucceeded, "finish run record")
}

// Fail stops the heartbeat and stores Record with status "failed" and
// cause's message (never a secret: connector and privacy errors hold
// none) — or status "interrupted" when cause is a cancelled context (a
// signal, a scheduler shutting down). It runs even when ctx is cancelled
// (then bounded by 10 s); a live ctx with a deadline — the caller's one
// bookkeeping deadline — is used as it is, so Fail never waits longer.
func (r *Run) Fail(ctx context.Context, cause error) error {
	r.stopHeartbeat()
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok || ctx.Err() != nil {
		wctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	}
	defer cancel()
	r.Record.FinishedAt = time.Now().UTC()
	r.Record.Error = "unknown error"
	if cause != nil {
		r.Record.Error = cause.Error()
	}
	if errors.Is(cause, context.Canceled) {
		r.Record.Error = "interrupted"
		return r.finish(wctx, StatusInterrupted, "record interrupted run")
	}
	return r.finish(wctx, StatusFailed, "record failed run")
}

func (r *Run) stopHeartbeat() {
	r.stopOnce.Do(func() { close(r.stop) })
	<-r.done
}

// finish writes Record with the given status; "superseded" is never
// overwritten, and the lease fields are the database's own.
func (r *Run) finish(ctx context.Context, status, op string) error {
	rec := r.Record
	rec.Status = status
	props, err := rec.properties()
	if err != nil {
		return err
	}
	dropLease(props)
	delete(props, "attempts")
	delete(props, "status")
	delete(props, "supersededBy")
	if status == StatusRunning {
		return r.update(ctx, op, props)
	}
	_, err = r.c.exec(ctx, r.db, op,
		"MATCH (r:"+RunRecordLabel+" {runId: $id}) SET r += $props, "+
			"r.status = CASE WHEN r.status = 'superseded' THEN r.status ELSE $status END",
		map[string]any{"id": rec.RunID, "props": props, "status": status})
	if err == nil {
		r.Record.Status = status
	}
	return err
}

// update stores props while the run is still "running": a run taken for
// dead meanwhile (abandoned by the next StartRun once its lease expired)
// or superseded is told *LeaseLostError and stores nothing, so that a run
// that another took for gone never publishes after it — also when the
// update's own transaction fails because of it (ownedWrite).
func (r *Run) update(ctx context.Context, op string, props map[string]any) error {
	err := r.c.ownedWrite(ctx, r.db, r.Record.RunID, false, func() error {
		recs, err := r.c.exec(ctx, r.db, op,
			"OPTIONAL MATCH (r:"+RunRecordLabel+" {runId: $id}) "+
				"FOREACH (_ IN CASE WHEN r.status = 'running' THEN [1] ELSE [] END | SET r += $props) "+
				"RETURN r.status, r.leaseExpiresAt",
			map[string]any{"id": r.Record.RunID, "props": props})
		if err != nil {
			return err
		}
		if v := recs[0].Values; v[0] != StatusRunning {
			return leaseLost(r.Record.RunID, v[0], v[1])
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Record.Status = StatusRunning
	return nil
}

func dropLease(p map[string]any) {
	delete(p, "leaseExpiresAt")
	delete(p, "heartbeatAt")
}

// AbandonExpired marks the "running" records of command and scope in
// database ("" = default; scope "" = the records without one) whose lease
// expired (by the database's clock; records written before leases
// existed expire 10 minutes after their last update) as "abandoned", and
// returns their run ids. StartRun does the same for its own command and
// scope, in the transaction that creates its record.
func (c *Client) AbandonExpired(ctx context.Context, database, command, scope string) ([]string, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	return runWrite(ctx, c, db, "abandon expired runs", func(ctx context.Context, tx neo4j.ManagedTransaction) ([]string, error) {
		return abandonExpired(ctx, tx, command, scope)
	})
}

// abandonExpired marks the expired "running" records of command and scope
// abandoned inside tx. Only those: marking one takes its lock, and a
// record can stay locked for as long as the server lets a transaction of
// its run's live: a process paused inside its transaction (SIGSTOP, a
// swapped-out host) holds it until the server ends that transaction at
// its timeout. A run of another command or scope has no business waiting
// for that; a release of the same scope must (it may take the scope over
// only once its holder can store nothing), within its --wait
// (WithLockWait).
func abandonExpired(ctx context.Context, tx neo4j.ManagedTransaction, command, scope string) ([]string, error) {
	res, err := tx.Run(ctx, "MATCH (r:"+RunRecordLabel+" {status: 'running', command: $command}) "+
		"WHERE coalesce(r.scope, '') = $scope AND coalesce(r.leaseExpiresAt, r.updatedAt + duration('PT10M')) < datetime() "+
		"SET r.status = 'abandoned', r.abandonedAt = datetime() RETURN r.runId",
		map[string]any{"command": command, "scope": scope})
	if err != nil {
		return nil, err
	}
	recs, err := res.Collect(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(recs))
	for _, rec := range recs {
		if s, ok := rec.Values[0].(string); ok {
			ids = append(ids, s)
		}
	}
	return ids, nil
}

// MarkSuperseded records that run by overwrote run runID's values: status
// "superseded", supersededBy = by. WriteProperties with a RunID does this
// itself, in the transaction of each batch.
func (c *Client) MarkSuperseded(ctx context.Context, database, runID, by string) error {
	db, err := c.db(database)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, db, "mark run superseded", supersede("$prevs")+" RETURN count(r)",
		map[string]any{"prevs": []string{runID}, "run": by})
	return err
}

// supersede marks the runs whose ids are in the list prevs (a Cypher
// expression), other than $run, superseded by $run.
func supersede(prevs string) string {
	return "MATCH (r:" + RunRecordLabel + ") WHERE r.runId IN " + prevs + " AND r.runId <> $run " +
		"SET r.status = 'superseded', r.supersededBy = $run, r.supersededAt = datetime()"
}

// FindRelease returns the release run record that charged (scope, epoch)
// in database — the newest one that published, else the newest — or nil
// when there is none: a retry of a charged epoch resumes it (ResumeRun)
// or, when it published, re-publishes its values.
func (c *Client) FindRelease(ctx context.Context, database, scope, epoch string) (*RunRecord, error) {
	db, err := c.db(database)
	if err != nil {
		return nil, err
	}
	return runRead(ctx, c, db, "find release run", func(ctx context.Context, tx neo4j.ManagedTransaction) (*RunRecord, error) {
		res, err := tx.Run(ctx, "MATCH (r:"+RunRecordLabel+" {command: 'release', scope: $scope, epoch: $epoch}) "+
			"RETURN properties(r) ORDER BY "+publishedRun+" DESC, r.startedAt DESC LIMIT 1", map[string]any{"scope": scope, "epoch": epoch})
		if err != nil {
			return nil, err
		}
		if !res.Next(ctx) {
			return nil, res.Err()
		}
		p, _ := res.Record().Values[0].(map[string]any)
		r := runRecordFrom(p)
		r.Database = db
		return r, res.Err()
	})
}

// BindingError reports nodes whose values were not written by the run a
// reader asked for: another run overwrote them (Others, run id → node
// count, the most frequent first in Order), or no run id is recorded
// (Unbound, values written before runs were bound or by hand).
type BindingError struct {
	RunID, Property string
	Others          map[string]int64
	Order           []string
	Unbound         int64
}

func (e *BindingError) Error() string {
	msg := fmt.Sprintf("connector: the values in %q are not all from run %q:", e.Property, e.RunID)
	for _, id := range e.Order {
		msg += fmt.Sprintf(" %d nodes were overwritten by run %q;", e.Others[id], id)
	}
	if e.Unbound > 0 {
		msg += fmt.Sprintf(" %d nodes carry no run id;", e.Unbound)
	}
	return msg[:len(msg)-1]
}

func (*BindingError) connectorError() {}

// CheckRunBinding verifies that every node of p that has writeProperty
// holds the value written by run runID (RunIDProperty(writeProperty) =
// runID); otherwise it returns *BindingError naming the runs that
// overwrote them. Readers of a run's values (unmask, locate
// --release-run) call it before trusting them.
func (c *Client) CheckRunBinding(ctx context.Context, p Projection, writeProperty, runID string) error {
	if err := CheckWriteProperty(writeProperty); err != nil {
		return err
	}
	cp, err := p.compile()
	if err != nil {
		return err
	}
	db, err := c.db(p.Database)
	if err != nil {
		return err
	}
	bind := RunIDProperty(writeProperty)
	q := "MATCH " + cp.nodeMatch("n") + " WHERE n[$prop] IS NOT NULL AND coalesce(n[$bind], '') <> $run " +
		"RETURN n[$bind] AS other, count(*) AS c ORDER BY c DESC"
	e := &BindingError{RunID: runID, Property: writeProperty, Others: map[string]int64{}}
	_, err = runRead(ctx, c, db, "check run binding", func(ctx context.Context, tx neo4j.ManagedTransaction) (struct{}, error) {
		*e = BindingError{RunID: runID, Property: writeProperty, Others: map[string]int64{}}
		res, err := tx.Run(ctx, q, map[string]any{"prop": writeProperty, "bind": bind, "run": runID})
		if err != nil {
			return struct{}{}, err
		}
		for res.Next(ctx) {
			v := res.Record().Values
			n, _ := v[1].(int64)
			if other, ok := v[0].(string); ok {
				e.Others[other] = n
				e.Order = append(e.Order, other)
			} else {
				e.Unbound += n
			}
		}
		return struct{}{}, res.Err()
	})
	if err != nil {
		return err
	}
	if len(e.Order) > 0 || e.Unbound > 0 {
		return e
	}
	return nil
}

//go:build unix

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphcloak/graphcloak/connector"
)

// releaseProc is a release process of the built binary, started.
type releaseProc struct {
	cmd    *exec.Cmd
	so, se bytes.Buffer
	done   chan cliResult
}

func startRelease(t *testing.T, e *e2e, args []string) *releaseProc {
	t.Helper()
	p := &releaseProc{cmd: exec.Command(graphcloakBinary(t), args...), done: make(chan cliResult, 1)}
	p.cmd.Dir = t.TempDir()
	p.cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+e.s.Password)
	p.cmd.Stdout, p.cmd.Stderr = &p.so, &p.se
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		r := cliResult{Stdout: p.so.String(), Stderr: p.se.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.Code = ee.ExitCode()
			if ee.ExitCode() < 0 {
				r.Code = -1
			}
		} else if err != nil {
			r.Code = -1
		}
		p.done <- r
	}()
	t.Cleanup(func() { _ = p.cmd.Process.Signal(syscall.SIGCONT); _ = p.cmd.Process.Kill() })
	return p
}

func (p *releaseProc) wait(t *testing.T, within time.Duration) cliResult {
	t.Helper()
	select {
	case r := <-p.done:
		return r
	case <-time.After(within):
		_ = p.cmd.Process.Kill()
		t.Fatalf("release still running after %v", within)
		return cliResult{}
	}
}

// epochCharges counts the ledger's charges of scope's epoch.
func epochCharges(t *testing.T, d neo4j.DriverWithContext, scope, epoch string) int64 {
	t.Helper()
	r := query(t, d, "MATCH (c:GraphcloakCharge {scope: $s, releaseId: $e}) RETURN count(c)", map[string]any{"s": scope, "e": epoch})
	return r[0].Values[0].(int64)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// N release processes of one epoch, started over ~1 s (so that some plan
// while another has charged the epoch and not yet stored its values):
// exactly one charge and one publication, every process exits 0 — never
// the "charged but cannot be published" exit 7, which before told the
// late ones to release under a new epoch (pay again) while the first went
// on to publish. GRAPHCLOAK_EPOCH_RACES (default 2) and
// GRAPHCLOAK_EPOCH_RACERS (default 6) size it; scripts/epochrace.sh runs
// 50 races.
func TestConcurrentEpochRaces(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{150, 150}, 0.06, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	e.eps = 0.1 // room for many epochs in the scope's ε = 10
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	races, racers := envInt("GRAPHCLOAK_EPOCH_RACES", 2), envInt("GRAPHCLOAK_EPOCH_RACERS", 6)
	codes, waitedEpoch, waitedScope := map[int]int{}, 0, 0
	for race := range races {
		epoch := fmt.Sprintf("race-%d", race)
		procs := make([]*releaseProc, racers)
		for i := range procs {
			if i > 0 {
				time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
			}
			procs[i] = startRelease(t, e, e.releaseArgs(epoch, "--wait", "5m", "--log-level", "info"))
		}
		published := 0
		for i, p := range procs {
			r := p.wait(t, 10*time.Minute)
			codes[r.Code]++
			switch {
			case strings.Contains(r.Stderr, "waiting for the release of this epoch"):
				waitedEpoch++ // found a run of the epoch running (perhaps charged): waited for its outcome
			case strings.Contains(r.Stderr, "waiting for another release of the scope"):
				waitedScope++
			}
			if r.Code != 0 {
				t.Errorf("%s: release %d of %d exited %d:\n%s", epoch, i+1, racers, r.Code, r.Stderr)
				continue
			}
			var sum struct{ AlreadyPublished bool }
			if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
				t.Fatalf("%s: %v\n%s", epoch, err, r.Stdout)
			}
			if !sum.AlreadyPublished {
				published++
			}
		}
		if n := epochCharges(t, d, e.scope, epoch); n != 1 || published != 1 {
			t.Errorf("%s: %d charges, %d of %d releases published; want one each", epoch, n, published, racers)
		}
	}
	t.Logf("%d races of %d releases: exit codes %v; %d releases waited for a running run of their epoch, %d for another run of the scope",
		races, racers, codes, waitedEpoch, waitedScope)
}

// pausedHolder starts a release of epoch and stops it (SIGSTOP) right
// after it charged the epoch, before it stored its values; it retries
// with a fresh epoch when the stop came too late. It returns the process,
// the epoch and the holder's run id.
func pausedHolder(t *testing.T, e *e2e, args ...string) (*releaseProc, string, string) {
	t.Helper()
	for try := range 10 {
		epoch := fmt.Sprintf("paused-%d", try)
		p := startRelease(t, e, e.releaseArgs(epoch, args...))
		deadline := time.Now().Add(5 * time.Minute)
		for epochCharges(t, e.d, e.scope, epoch) == 0 {
			select {
			case r := <-p.done:
				t.Fatalf("the holder ended before charging: exit %d\n%s", r.Code, r.Stderr)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatal("no charge within 5 minutes")
			}
		}
		if err := p.cmd.Process.Signal(syscall.SIGSTOP); errors.Is(err, os.ErrProcessDone) {
			t.Logf("try %d: the release ended before it was stopped; again", try)
			p.wait(t, 5*time.Minute)
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		recs := query(t, e.d, "MATCH (r:GraphcloakRun {scope: $s, epoch: $e, command: 'release'}) RETURN r.runId, coalesce(r.valuesStored, false)",
			map[string]any{"s": e.scope, "e": epoch})
		if len(recs) == 1 && recs[0].Values[1] == false {
			return p, epoch, recs[0].Values[0].(string)
		}
		t.Logf("try %d: stopped after the values were stored; again", try)
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		p.wait(t, 5*time.Minute)
	}
	t.Skip("never stopped a release between its charge and storing its values")
	return nil, "", ""
}

// A run paused between its charge and storing its values (a stopped
// process, a long GC, a slow disk): releases of its epoch started then
// wait for it and, once it goes on and publishes, exit 0 "already
// published" — the first exited 7 at once before, advising a new charge.
func TestEpochChargedByPausedHolder(t *testing.T) {
	t.Parallel() // waits on a stopped holder; its own scope
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{150, 150}, 0.06, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	holder, epoch, holderID := pausedHolder(t, e)
	racers := make([]*releaseProc, 3)
	for i := range racers {
		racers[i] = startRelease(t, e, e.releaseArgs(epoch, "--wait", "5m"))
	}
	time.Sleep(8 * time.Second)
	for i, r := range racers {
		select {
		case res := <-r.done:
			t.Fatalf("release %d ended while the holder %s was paused: exit %d\n%s", i, holderID, res.Code, res.Stderr)
		default:
		}
	}
	if err := holder.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r := holder.wait(t, 5*time.Minute); r.Code != 0 {
		t.Fatalf("holder: exit %d\n%s", r.Code, r.Stderr)
	}
	for i, p := range racers {
		r := p.wait(t, 5*time.Minute)
		var sum struct{ AlreadyPublished bool }
		if err := json.Unmarshal([]byte(r.Stdout), &sum); r.Code != 0 || err != nil || !sum.AlreadyPublished {
			t.Errorf("release %d: exit %d, %+v; want 0, already published\n%s", i, r.Code, sum, r.Stderr)
		}
	}
	if n := epochCharges(t, d, e.scope, epoch); n != 1 {
		t.Errorf("%d charges of %s, want 1", n, epoch)
	}
}

// A holder that dies between its charge and storing its values (stopped
// past its lease): the releases waiting for it exit 7 once its lease
// expired, naming it — and when it wakes up, it can no longer publish: it
// exits 7 too, no value written, saying that it lost its lease (taken for
// dead when its lease expired), that nothing it drew is published and that
// the epoch stays charged — never the generic "cannot be published"
// advice. Stopped between two transactions, or inside the transaction of
// its run record's update (the server then terminates that transaction at
// its --transaction-timeout, and the waiters take the record once it
// does): before, the woken holder's failed commit was reported as a
// timeout of its own update, with the old advice to release under a new
// epoch.
func TestEpochChargedByDeadHolder(t *testing.T) {
	t.Parallel() // waits on a stopped holder; its own scopes
	t.Run("stopped after its charge", func(t *testing.T) { t.Parallel(); deadHolder(t, false) })
	t.Run("stopped inside its record update", func(t *testing.T) { t.Parallel(); deadHolder(t, true) })
}

// holderTxTimeout is the woken holder's --transaction-timeout when it is
// stopped inside a transaction: the server ends that transaction then.
const holderTxTimeout = 20 * time.Second

func deadHolder(t *testing.T, inTx bool) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{150, 150}, 0.06, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	var holder *releaseProc
	var epoch, holderID string
	var gate *commitGate
	if inTx {
		holder, epoch, holderID, gate = holderStoppedInUpdate(t, e, "--lease", "6s", "--transaction-timeout", holderTxTimeout.String())
	} else {
		holder, epoch, holderID = pausedHolder(t, e, "--lease", "6s", "--transaction-timeout", holderTxTimeout.String())
	}
	racers := make([]*releaseProc, 2)
	for i := range racers {
		racers[i] = startRelease(t, e, e.releaseArgs(epoch, "--wait", "5m"))
	}
	results := make([]cliResult, len(racers))
	waited := time.Now()
	for i, p := range racers {
		results[i] = p.wait(t, 5*time.Minute)
	}
	// A stop inside one of the holder's transactions keeps its record
	// locked until the server ends that transaction at the holder's
	// transaction timeout: the waiters wait that long to take it for dead.
	t.Logf("the waiters exited after %v", time.Since(waited).Round(time.Millisecond))
	// The stop can land while the holder's store is in flight: its values
	// are then stored after all, and the waiters rightly resume them (no
	// new charge) — a different case, not this test's.
	stored := query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) RETURN coalesce(r.valuesStored, false), r.status", map[string]any{"id": holderID})
	if len(stored) == 1 && stored[0].Values[0] == true {
		_ = holder.cmd.Process.Signal(syscall.SIGCONT)
		holder.wait(t, 5*time.Minute)
		t.Skip("the holder's values were stored as it was stopped: resumed by the waiters, as they should")
	}
	for i, r := range results {
		if r.Code != 7 || !strings.Contains(r.Stderr, holderID) {
			t.Errorf("release %d: exit %d; want 7 naming the dead holder %s\n%s", i, r.Code, holderID, r.Stderr)
		}
	}
	if len(stored) != 1 || stored[0].Values[1] != connector.StatusAbandoned {
		t.Fatalf("the dead holder's record: %v; want it abandoned by its waiters", stored)
	}
	if err := holder.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	woke := time.Now()
	gate.open() // the commit the holder was about to send when it was stopped
	r := holder.wait(t, 5*time.Minute)
	took := time.Since(woke)
	t.Logf("the woken holder exited %d after %v:\n%s", r.Code, took.Round(time.Millisecond), r.Stderr)
	if r.Code != 7 {
		t.Errorf("the holder woke up after its lease expired: exit %d; want 7 (lease lost)", r.Code)
	}
	msg := errorMessage(t, r.Stderr)
	for _, want := range []string{holderID + " lost its lease", "taken for dead after its lease expired at", "None of the values it drew is published", "stays charged"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the woken holder's message does not say %q:\n%s", want, msg)
		}
	}
	// Not the generic refusal of a charged epoch, nor a timeout of its own
	// update: the holder knows why it cannot publish.
	for _, not := range []string{"release under a new --epoch; that costs ρ again", "transaction timeout", "did not answer"} {
		if strings.Contains(msg, not) {
			t.Errorf("the woken holder's message says %q:\n%s", not, msg)
		}
	}
	// It learns of its lost lease from its record at once, not by waiting
	// for a lock or its transaction timeout.
	if took >= holderTxTimeout {
		t.Errorf("the woken holder took %v to exit, as long as its transaction timeout (%v)", took, holderTxTimeout)
	}
	// Values bound to the dead holder's run (an earlier try of
	// pausedHolder, stopped too late, published its own epoch legitimately
	// into the same property: those are not the dead holder's).
	written := query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.`"+connector.RunIDProperty(e.write)+"` = $id RETURN count(n)",
		map[string]any{"id": holderID})
	if n := written[0].Values[0].(int64); n != 0 {
		t.Errorf("%d values written by the holder after it was taken for dead", n)
	}
	if n := epochCharges(t, d, e.scope, epoch); n != 1 {
		t.Errorf("%d charges of %s, want 1", n, epoch)
	}
}

// A release stopped inside the transaction of its run record's update
// for longer than its --transaction-timeout, but not for its whole lease:
// the server ends that transaction, and the commit the release sends when
// it wakes up fails. Nobody took it for dead — its record is still
// "running" — so it updates the record again, in a new transaction, and
// publishes: exit 0, one charge, its values written. Before, it exited 7
// with a timeout of its own update, its values lost.
func TestHolderStoppedInsideItsUpdate(t *testing.T) {
	t.Parallel() // waits on a stopped holder; its own scope
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{150, 150}, 0.06, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	// A lease longer than the stop: no run of the server (other tests
	// included) may take the holder for dead meanwhile.
	holder, epoch, holderID, gate := holderStoppedInUpdate(t, e, "--lease", "2m", "--transaction-timeout", holderTxTimeout.String())
	time.Sleep(holderTxTimeout + 3*time.Second) // the server ends the holder's transaction
	if err := holder.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	gate.open()
	r := holder.wait(t, 5*time.Minute)
	var sum struct {
		AlreadyPublished      bool
		NodePropertiesWritten int
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); r.Code != 0 || err != nil || sum.AlreadyPublished || sum.NodePropertiesWritten != len(f.Keys) {
		t.Fatalf("the holder woke up still holding its lease: exit %d, %+v; want 0, its %d values written\n%s", r.Code, sum, len(f.Keys), r.Stderr)
	}
	written := query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.`"+connector.RunIDProperty(e.write)+"` = $id RETURN count(n)",
		map[string]any{"id": holderID})
	if n := written[0].Values[0].(int64); n != int64(len(f.Keys)) {
		t.Errorf("%d values bound to the holder's run, want %d", n, len(f.Keys))
	}
	if rec := runRecord(t, d, holderID); rec["status"] != connector.StatusSucceeded {
		t.Errorf("the holder's record: status %v, want succeeded", rec["status"])
	}
	if n := epochCharges(t, d, e.scope, epoch); n != 1 {
		t.Errorf("%d charges of %s, want 1", n, epoch)
	}
}

// defaultTxTimeout is the CLI's default --transaction-timeout: the server
// ends a transaction of a process paused inside it only after this long.
const defaultTxTimeout = 2 * time.Minute

// A holder stopped inside its run record's update, past its 6 s lease,
// with the default 2 min transaction timeout: its record stays locked
// until the server ends that transaction. A release of its epoch with a
// short --wait gives up within its wait — not at the holder's transaction
// timeout — with exit 8, saying that the holder still holds its record
// (its process may be paused) and may still publish, never advising a
// new charge; and it was right: the holder, woken before its transaction
// timeout, publishes (exit 0, one charge). A release of another scope
// started meanwhile completes (exit 0) without touching the stalled
// record. Before, both blocked on that record's lock — the waiter's and
// the other scope's start marked every expired run of the database
// abandoned — until the server ended the holder's transaction at 2 min
// (the waiter then took the holder for dead and exited 7).
func TestWaiterOfHolderStoppedInsideItsUpdate(t *testing.T) {
	t.Parallel() // waits on a stopped holder; its own scope
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{150, 150}, 0.06, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	other := newE2E(t, s, d, f) // another scope and write property, the same graph
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope); deleteScopeRuns(t, d, other.scope) })
	holder, epoch, holderID, gate := holderStoppedInUpdate(t, e, "--lease", "6s")
	stopped := time.Now()
	// Past this, the server ends the holder's transaction: a run that
	// waited for its lock would go on then.
	txEnds := stopped.Add(defaultTxTimeout - 10*time.Second)
	const wait = 10 * time.Second
	waiter := startRelease(t, e, e.releaseArgs(epoch, "--wait", wait.String()))
	waiterStarted := time.Now()
	time.Sleep(time.Until(stopped.Add(7 * time.Second))) // the holder's lease has expired: its record is due to be marked abandoned
	otherRun := startRelease(t, other, other.releaseArgs("other-scope", "--wait", "5m"))
	otherStarted := time.Now()

	// within is p's result, how long after started it came, and whether
	// it came before the server ends the holder's transaction.
	within := func(p *releaseProc, what string, started time.Time) (cliResult, time.Duration, bool) {
		t.Helper()
		select {
		case r := <-p.done:
			return r, time.Since(started), true
		case <-time.After(time.Until(txEnds)):
			t.Errorf("%s still running %v after the holder was stopped: blocked on the holder's record lock until the server ends its transaction (%v)",
				what, time.Since(stopped).Round(time.Second), defaultTxTimeout)
			return cliResult{}, 0, false
		}
	}
	wr, wTook, wDone := within(waiter, "the waiter (--wait 10s)", waiterStarted)
	or, oTook, oDone := within(otherRun, "the release of another scope", otherStarted)
	// Read before the holder wakes: nobody took it for dead.
	status := runRecord(t, d, holderID)["status"]
	if wDone && oDone {
		t.Logf("the waiter (--wait %v) exited %d after %v; the release of another scope exited %d after %v; the holder's record: %v",
			wait, wr.Code, wTook.Round(time.Millisecond), or.Code, oTook.Round(time.Millisecond), status)
	}
	if wDone {
		msg := errorMessage(t, wr.Stderr)
		t.Logf("the waiter's message: %s", msg)
		if wr.Code != 8 {
			t.Errorf("the waiter: exit %d, want 8 (waited, the outcome unknown)\n%s", wr.Code, wr.Stderr)
		}
		for _, want := range []string{"gave up after --wait 10s waiting for run " + holderID, "still holds its run record", "paused",
			"may still store and publish its values", "needs no new charge", "same --epoch once that run ends"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the waiter's message does not say %q:\n%s", want, msg)
			}
		}
		for _, not := range []string{"costs ρ again", "another --epoch", "lost its lease"} {
			if strings.Contains(msg, not) {
				t.Errorf("the waiter's message says %q while the holder may still publish:\n%s", not, msg)
			}
		}
	}
	if oDone && or.Code != 0 {
		t.Errorf("the release of another scope: exit %d, want 0\n%s", or.Code, or.Stderr)
	}
	if status != connector.StatusRunning {
		t.Errorf("the holder's record is %v before it woke, want running: a run waited for its lock until the server ended its transaction", status)
	}
	// The holder goes on: its transaction is still open (woken before its
	// timeout), its record still its own — it publishes.
	if err := holder.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	gate.open()
	r := holder.wait(t, 5*time.Minute)
	var sum struct {
		AlreadyPublished      bool
		NodePropertiesWritten int
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); r.Code != 0 || err != nil || sum.AlreadyPublished || sum.NodePropertiesWritten != len(f.Keys) {
		t.Errorf("the holder woken before its transaction timeout: exit %d, %+v; want 0, its %d values written\n%s", r.Code, sum, len(f.Keys), r.Stderr)
	}
	if n := epochCharges(t, d, e.scope, epoch); n != 1 {
		t.Errorf("%d charges of %s, want 1", n, epoch)
	}
	if !wDone {
		waiter.wait(t, 5*time.Minute)
	}
	if !oDone {
		otherRun.wait(t, 5*time.Minute)
	}
}

// A release's run record whose lease expired, kept locked by a
// transaction that does not end (its process paused inside it): starting
// a run of another scope, or of another command in its scope, never
// touches that record and starts at once; a release of its scope, bounded
// by connector.WithLockWait, gives up at that bound with
// *connector.LockWaitError and leaves the record as it is; once the lock
// is gone, the next release of the scope marks the record abandoned.
// Before, every start marked every expired run of the database abandoned,
// and so waited for that lock, whatever its scope.
func TestStartRunBesideALockedRecord(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	ctx := ctxT(t)
	scope := uniqueName(t, "scope")
	other := scope + "_other"
	stale := scope + "-stale"
	t.Cleanup(func() {
		query(t, d, "MATCH (r) WHERE (r:GraphcloakRun OR r:GraphcloakScopeLease) AND r.scope IN [$a, $b] DETACH DELETE r",
			map[string]any{"a": scope, "b": other})
	})
	if err := c.WriteRunRecord(ctx, connector.RunRecord{RunID: stale, Command: "release", Status: connector.StatusRunning,
		Scope: scope, Epoch: "e1", StartedAt: time.Now(), LeaseExpiresAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	sess := d.NewSession(ctx, neo4j.SessionConfig{DatabaseName: "neo4j"})
	defer sess.Close(ctx)
	tx, err := sess.BeginTransaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Run(ctx, "MATCH (r:GraphcloakRun {runId: $id}) SET r.pausedInside = true", map[string]any{"id": stale}); err != nil {
		t.Fatal(err)
	}
	start := func(ctx context.Context, id, command, scope string) (time.Duration, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		began := time.Now()
		run, err := c.StartRun(ctx, connector.RunRecord{RunID: id, Command: command, Scope: scope, Epoch: "e1"}, time.Minute)
		took := time.Since(began)
		if err == nil {
			if err := run.Succeed(ctx); err != nil {
				t.Error(err)
			}
		}
		return took, err
	}
	status := func() any { return runRecord(t, d, stale)["status"] }
	for _, tc := range []struct{ what, id, command, scope string }{
		{"a release of another scope", other + "-1", "release", other},
		{"a locate of the same scope", scope + "-locate", "locate", scope},
	} {
		took, err := start(ctx, tc.id, tc.command, tc.scope)
		t.Logf("%s started in %v: %v", tc.what, took.Round(time.Millisecond), err)
		if err != nil {
			t.Errorf("%s: %v; want it started beside the locked record", tc.what, err)
		}
	}
	if st := status(); st != connector.StatusRunning {
		t.Fatalf("the locked record is %v, want running (nobody of its scope took it for dead)", st)
	}
	took, err := start(connector.WithLockWait(ctx, time.Second), scope+"-1", "release", scope)
	t.Logf("a release of its scope (lock wait %v) gave up after %v: %v", connector.MinLockWait, took.Round(time.Millisecond), err)
	var lw *connector.LockWaitError
	if !errors.As(err, &lw) || lw.After != connector.MinLockWait {
		t.Errorf("a release of the locked record's scope under a lock-wait bound: %v (%T); want *connector.LockWaitError after %v", err, err, connector.MinLockWait)
	}
	if took > connector.MinLockWait+15*time.Second {
		t.Errorf("it gave up after %v, long past its bound %v", took, connector.MinLockWait)
	}
	if st := status(); st != connector.StatusRunning {
		t.Fatalf("the locked record is %v after the bounded start, want running", st)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := start(ctx, scope+"-2", "release", scope); err != nil {
		t.Fatalf("a release of the scope once the lock is gone: %v", err)
	}
	if st := status(); st != connector.StatusAbandoned {
		t.Errorf("the expired record is %v once a release of its scope started, want abandoned", st)
	}
}

// errorMessage is the message of the JSON error a command printed on
// stderr (-o json), or stderr itself when there is none.
func errorMessage(t *testing.T, stderr string) string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		var out struct{ Error struct{ Message string } }
		if json.Unmarshal([]byte(line), &out) == nil && out.Error.Message != "" {
			return out.Error.Message
		}
	}
	return stderr
}

// holderStoppedInUpdate starts a release of a fresh epoch through a
// commitGate and returns it stopped (SIGSTOP) inside the transaction of
// its run record's update, after its charge: the update ran on the
// server (which holds the record's lock for it), the commit not yet
// sent. It returns the process, the epoch, the holder's run id and the
// gate, which sends that commit on when opened.
func holderStoppedInUpdate(t *testing.T, e *e2e, args ...string) (*releaseProc, string, string, *commitGate) {
	t.Helper()
	gate := newCommitGate(t, e.s.URI, runUpdateQuery)
	via := *e
	via.s.URI = gate.uri()
	epoch := "stopped-in-update"
	var p *releaseProc
	gate.onStop = func() { _ = p.cmd.Process.Signal(syscall.SIGSTOP) }
	gate.mu.Lock() // p is set before the gate can stop it
	p = startRelease(t, e, via.releaseArgs(epoch, args...))
	gate.mu.Unlock()
	select {
	case <-gate.stopped:
	case r := <-p.done:
		t.Fatalf("the holder ended before updating its record: exit %d\n%s", r.Code, r.Stderr)
	case <-time.After(5 * time.Minute):
		t.Fatal("the holder did not update its record within 5 minutes")
	}
	if n := epochCharges(t, e.d, e.scope, epoch); n != 1 {
		t.Fatalf("%d charges of %s when the holder was stopped in its record update, want 1", n, epoch)
	}
	recs := query(t, e.d, "MATCH (r:GraphcloakRun {scope: $s, epoch: $e, command: 'release'}) RETURN r.runId", map[string]any{"s": e.scope, "e": epoch})
	if len(recs) != 1 {
		t.Fatalf("%d run records of %s, want 1", len(recs), epoch)
	}
	return p, epoch, recs[0].Values[0].(string), gate
}

// runUpdateQuery is a part of the Cypher of connector's run-record update
// (Run.Update), by which commitGate knows that transaction.
const runUpdateQuery = "THEN [1] ELSE [] END | SET r += $props"

// commitGate forwards Bolt connections to a Neo4j server. On the first
// connection that sends a query containing its marker, it holds back the
// transaction's COMMIT: it calls onStop (which stops the client process)
// and sends the commit on only when opened — the client was stopped
// inside that transaction. Every other byte is forwarded as it comes.
type commitGate struct {
	target, marker string
	ln             net.Listener
	mu             sync.Mutex
	onStop         func()
	armed          bool          // the marker was seen: the next COMMIT stops
	held           bool          // a commit was held back
	stopped        chan struct{} // closed when the client was stopped
	release        chan struct{} // closed by open
	openOnce       sync.Once
}

// boltCommit is a Bolt COMMIT message in its chunk: size 2, struct of no
// fields with signature 0x12, end of message.
var boltCommit = []byte{0x00, 0x02, 0xB0, 0x12, 0x00, 0x00}

func newCommitGate(t *testing.T, boltURI, marker string) *commitGate {
	t.Helper()
	u, err := url.Parse(boltURI)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &commitGate{target: u.Host, marker: marker, ln: ln, stopped: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { ln.Close(); g.open() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.forward(c)
		}
	}()
	return g
}

func (g *commitGate) uri() string { return "bolt://" + g.ln.Addr().String() }

// open sends the held commit on (and every later byte); nil-safe.
func (g *commitGate) open() {
	if g != nil {
		g.openOnce.Do(func() { close(g.release) })
	}
}

func (g *commitGate) forward(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", g.target)
	if err != nil {
		return
	}
	defer s.Close()
	go func() { _, _ = io.Copy(c, s); c.Close() }()
	buf := make([]byte, 64<<10)
	var tail []byte // the end of what came before, for a marker split over reads
	mine := false   // this connection sent the marker
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		b := buf[:n]
		seen := append(tail, b...)
		g.mu.Lock()
		if !g.held && !mine && bytes.Contains(seen, []byte(g.marker)) {
			mine, g.armed = true, true
		}
		hold := mine && g.armed && !g.held && bytes.Contains(b, boltCommit)
		if hold {
			g.held = true
			g.onStop()
			close(g.stopped)
		}
		g.mu.Unlock()
		if hold {
			<-g.release
		}
		if _, err := s.Write(b); err != nil {
			return
		}
		tail = append(tail[:0], seen[max(0, len(seen)-len(g.marker)):]...)
	}
}

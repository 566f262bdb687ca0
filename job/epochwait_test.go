package job_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job/jobtest"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// holder is a release paused between its charge and storing its values:
// its run is live (lease unexpired), the epoch charged, nothing stored.
type holder struct {
	p   *ReleasePlan
	run Run
	rel *privacy.Released
}

func (f *fixture) chargedHolder(id string) *holder {
	f.t.Helper()
	ctx := context.Background()
	p, err := PlanRelease(ctx, f.spec(id), f.env())
	if err != nil {
		f.t.Fatal(err)
	}
	run, err := p.StartStep(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	rel, err := p.DrawStep(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	if st, err := f.mem.State(testScope, testEpoch); err != nil || st != StateCharged || f.mem.Charges() != 1 {
		f.t.Fatalf("holder: state %v, %v, %d charges; want charged once", st, err, f.mem.Charges())
	}
	return &holder{p, run, rel}
}

// publish lets the paused holder go on: store, write, succeed.
func (h *holder) publish() error { return h.p.PublishStep(context.Background(), h.run, h.rel) }

// waiter releases the same epoch as run id with --wait wait; at each of
// its polls (the fixture's clock moves by PollInterval) it calls poll
// with the poll's number, from 1.
func (f *fixture) waiter(id string, wait time.Duration, poll func(n int)) (*ReleaseSummary, int, error) {
	ctx := context.Background()
	spec := f.spec(id)
	spec.Wait = wait
	env := f.env()
	polls := 0
	env.Sleep = func(context.Context, time.Duration) error {
		polls++
		f.now = f.now.Add(PollInterval)
		if poll != nil {
			poll(polls)
		}
		return nil
	}
	p, err := PlanRelease(ctx, spec, env)
	if err != nil {
		return nil, polls, err
	}
	sum, err := Execute(ctx, p)
	return sum, polls, err
}

// advisesSecondCharge: the message tells the operator to pay for the
// epoch again.
func advisesSecondCharge(err error) bool {
	return err != nil && strings.Contains(err.Error(), "costs ρ again")
}

// A run of an epoch that a live run has charged and not yet stored
// waits for it and reports its outcome: the holder publishes → exit 0,
// already published, one charge.
func TestWaitForChargedHolderPublished(t *testing.T) {
	f := newFixture(t)
	h := f.chargedHolder("r1")
	var herr error
	sum, polls, err := f.waiter("r2", 10*time.Minute, func(n int) {
		if n == 3 {
			herr = h.publish()
		}
	})
	if herr != nil {
		t.Fatalf("holder: %v", herr)
	}
	if err != nil {
		t.Fatalf("waiter (after %d polls): %v (kind %v); want it to wait for r1 and find the epoch published", polls, err, errkind.Of(err))
	}
	if !sum.AlreadyPublished || sum.RunID != "r1" || polls < 3 {
		t.Fatalf("waiter: %+v after %d polls; want already published by r1", sum, polls)
	}
	if st, err := f.mem.State(testScope, testEpoch); err != nil || st != StatePublished || f.mem.Charges() != 1 {
		t.Fatalf("state %v, %v, %d charges; want published with one charge", st, err, f.mem.Charges())
	}
}

// The holder stores its values and then fails: the waiter resumes it
// (no charge, the holder's values).
func TestWaitForChargedHolderStoredThenFailed(t *testing.T) {
	f := newFixture(t)
	h := f.chargedHolder("r1")
	sum, _, err := f.waiter("r2", 10*time.Minute, func(n int) {
		if n == 2 {
			if _, err := h.p.StoreStep(context.Background(), h.run, h.rel); err != nil {
				t.Errorf("holder store: %v", err)
			}
			RecordFailure(context.Background(), nil, h.run, errors.New("killed after storing"))
		}
	})
	if err != nil || !sum.Resumed || sum.RunID != "r1" || f.mem.Charges() != 1 {
		t.Fatalf("waiter: %v, %+v, %d charges; want r1 resumed, one charge", err, sum, f.mem.Charges())
	}
	if st, err := f.mem.State(testScope, testEpoch); err != nil || st != StatePublished {
		t.Fatalf("state %v, %v; want published", st, err)
	}
}

// The holder fails before storing: its values are lost, the waiter
// exits 7 after waiting, naming the holder.
func TestWaitForChargedHolderFailed(t *testing.T) {
	f := newFixture(t)
	h := f.chargedHolder("r1")
	_, polls, err := f.waiter("r2", 10*time.Minute, func(n int) {
		if n == 2 {
			RecordFailure(context.Background(), nil, h.run, &NotStoredError{errors.New("disk full")})
		}
	})
	if errkind.Of(err) != errkind.Charged || !errors.As(err, new(*ChargedError)) || polls < 2 {
		t.Fatalf("waiter: %v (kind %v) after %d polls; want exit 7 once r1 failed", err, errkind.Of(err), polls)
	}
	if !strings.Contains(err.Error(), "r1") {
		t.Errorf("the refusal does not name the run that charged the epoch: %v", err)
	}
	if st, serr := f.mem.State(testScope, testEpoch); serr != nil || st != StateCharged || f.mem.Charges() != 1 {
		t.Fatalf("state %v, %v, %d charges; want charged once", st, serr, f.mem.Charges())
	}
}

// A holder that stops renewing its lease (paused, or dead) is taken for
// gone once the lease expires: the waiter exits 7 — and the holder, should
// it wake up, can no longer publish (its lease is lost), so the exit 7's
// advice of a new epoch is never wrong. The holder says so: it lost its
// lease, nothing it drew is published, the epoch stays charged — not the
// generic refusal of a charged epoch.
func TestChargedHolderLeaseExpires(t *testing.T) {
	f := newFixture(t)
	h := f.chargedHolder("r1")
	_, polls, err := f.waiter("r2", 10*time.Minute, nil)
	if errkind.Of(err) != errkind.Charged || !errors.As(err, new(*ChargedError)) {
		t.Fatalf("waiter: %v (kind %v) after %d polls; want exit 7 once r1's lease expired", err, errkind.Of(err), polls)
	}
	if waited := time.Duration(polls) * PollInterval; waited < lease {
		t.Fatalf("waiter gave up after %v, before r1's lease (%v) expired", waited, lease)
	}
	herr := h.publish()
	if errkind.Of(herr) != errkind.Charged {
		t.Fatalf("the holder woke up after being taken for gone and published: %v (kind %v)", herr, errkind.Of(herr))
	}
	var lost *LeaseLostAfterChargeError
	if !errors.As(herr, &lost) || lost.Lost.Status != connector.StatusAbandoned || lost.Lost.LeaseExpiresAt.IsZero() {
		t.Fatalf("the woken holder: %v (%T); want *LeaseLostAfterChargeError, its record abandoned after its lease expired", herr, herr)
	}
	msg := errkind.Render(herr, func(p errkind.Param) string { return "--" + string(p) })
	for _, want := range []string{"run r1 lost its lease", "taken for dead after its lease expired at " + lost.Lost.LeaseExpiresAt.UTC().Format(time.RFC3339),
		"None of the values it drew is published", `Epoch "` + testEpoch + `" stays charged`, "a longer --lease"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the woken holder's message does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "release under a new") || strings.Contains(msg, "cannot be published:") {
		t.Errorf("the woken holder's message is the generic refusal of a charged epoch:\n%s", msg)
	}
	if st, serr := f.mem.State(testScope, testEpoch); serr != nil || st != StateCharged || f.mem.Charges() != 1 {
		t.Fatalf("state %v, %v, %d charges; want charged once, nothing published", st, serr, f.mem.Charges())
	}
}

// A holder that outlasts --wait: the waiter gives up with exit 8 (busy),
// telling the operator to re-run the same epoch — never to pay again —
// and that re-run finds it published.
func TestChargedHolderOutlastsWait(t *testing.T) {
	f := newFixture(t)
	h := f.chargedHolder("r1")
	_, _, err := f.waiter("r2", 5*time.Second, nil)
	if errkind.Of(err) != errkind.Busy || advisesSecondCharge(err) {
		t.Fatalf("waiter: %v (kind %v); want exit 8 without advising a new charge", err, errkind.Of(err))
	}
	if err := h.publish(); err != nil {
		t.Fatal(err)
	}
	sum, _, err := f.waiter("r3", 0, nil)
	if err != nil || !sum.AlreadyPublished || f.mem.Charges() != 1 {
		t.Fatalf("re-run: %v, %+v, %d charges; want already published, one charge", err, sum, f.mem.Charges())
	}
}

// A dry run of an epoch a live run charged says it would wait.
func TestDryRunChargedHolder(t *testing.T) {
	f := newFixture(t)
	f.chargedHolder("r1")
	spec := f.spec("r2")
	spec.DryRun = true
	p, err := PlanRelease(context.Background(), spec, f.env())
	if err != nil || p.Summary.Step != Wait.String() {
		t.Fatalf("dry run: %v, step %q; want %q", err, p.Summary.Step, Wait.String())
	}
}

// The woken holder's message in each state its record can be found in:
// it always names the run, the epoch and the charge that stands, and
// never the generic refusal of a charged epoch.
func TestLeaseLostMessage(t *testing.T) {
	exp := time.Date(2026, 11, 26, 14, 5, 27, 0, time.UTC)
	for _, tc := range []struct {
		lost connector.LeaseLostError
		says string
	}{
		{connector.LeaseLostError{RunID: "r1", Status: connector.StatusAbandoned, LeaseExpiresAt: exp}, "taken for dead after its lease expired at 2026-11-26T14:05:27Z"},
		{connector.LeaseLostError{RunID: "r1", Status: connector.StatusAbandoned}, "taken for dead once its lease expired"},
		{connector.LeaseLostError{RunID: "r1"}, "its run record is gone"},
		{connector.LeaseLostError{RunID: "r1", Status: connector.StatusSuperseded}, `its record is "superseded"`},
	} {
		msg := errkind.Render(&LeaseLostAfterChargeError{Epoch: "e1", Lost: &tc.lost}, func(p errkind.Param) string { return "--" + string(p) })
		for _, want := range []string{"run r1 lost its lease before storing its values: ", tc.says, `Epoch "e1" stays charged`, "another --epoch"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%+v: %q does not say %q", tc.lost, msg, want)
			}
		}
		if strings.Contains(msg, "%!") || strings.Contains(msg, "costs ρ again") {
			t.Errorf("%+v: %q", tc.lost, msg)
		}
	}
}

// stalledRecord is a jobtest.Memory whose run record holder is locked by a
// transaction of the holder's own that never ends (its process paused
// inside it): a start that must take that record — the holder's lease
// expired, so starting marks it abandoned — waits for the lock until the
// bound its context carries (connector.WithLockWait), which the clock
// spends, and fails with *connector.LockWaitError. bounds are the bounds
// it was given.
type stalledRecord struct {
	*jobtest.Memory
	f      *fixture
	holder string
	bounds []time.Duration
}

func (s *stalledRecord) StartRun(ctx context.Context, rec connector.RunRecord, lease time.Duration) (Run, error) {
	for _, r := range s.Runs() {
		if r.RunID == s.holder && r.Status == connector.StatusRunning && !r.LeaseExpiresAt.After(s.f.now) && r.Scope == rec.Scope {
			d := connector.LockWaitOf(ctx)
			s.bounds = append(s.bounds, d)
			if d <= 0 {
				return nil, errors.New("stalledRecord: a start without a lock-wait bound would wait for the holder's transaction timeout")
			}
			s.f.now = s.f.now.Add(d)
			return nil, &connector.LockWaitError{Op: "start run", After: d, Err: errors.New("lock wait ended by the transaction timeout")}
		}
	}
	return s.Memory.StartRun(ctx, rec, lease)
}

// A holder whose lease expired while its record stays locked by its own
// transaction (paused inside it): the waiter's start waits for that lock
// no longer than what is left of its --wait, then gives up with exit 8,
// saying truthfully that the holder still holds its record and may still
// publish — no advice to pay again, and the holder is not taken for dead:
// when it goes on, it publishes, and the epoch is charged once.
func TestStalledHolderOutlastsWait(t *testing.T) {
	f := newFixture(t)
	h := f.chargedHolder("r1")
	st := &stalledRecord{Memory: f.mem, f: f, holder: "r1"}
	wait := lease + 10*time.Second
	start := f.now
	spec := f.spec("r2")
	spec.Wait = wait
	env := f.env()
	env.Backend = st
	p, err := PlanRelease(context.Background(), spec, env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(context.Background(), p)
	var stalled *HolderStalledError
	if errkind.Of(err) != errkind.Busy || !errors.As(err, &stalled) || stalled.Holder == nil || stalled.Holder.RunID != "r1" || !stalled.Charged {
		t.Fatalf("waiter: %v (%T, kind %v); want *HolderStalledError naming r1 (exit 8)", err, err, errkind.Of(err))
	}
	if len(st.bounds) != 1 {
		t.Fatalf("%d starts waited for the holder's record, want 1", len(st.bounds))
	}
	if took := f.now.Sub(start); took > wait+connector.MinLockWait {
		t.Errorf("the waiter gave up after %v, past its --wait %v (+ at most %v)", took, wait, connector.MinLockWait)
	}
	msg := errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) })
	for _, want := range []string{"gave up after --wait 1m10s waiting for run r1", "which charged epoch", "still holds its run record",
		"may still store and publish its values", "needs no new charge", "same --epoch once that run ends"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the waiter's message does not say %q:\n%s", want, msg)
		}
	}
	if advisesSecondCharge(err) || strings.Contains(msg, "another --epoch") || strings.Contains(msg, "%!") {
		t.Errorf("the waiter's message:\n%s", msg)
	}
	// The holder was not taken for dead: it goes on and publishes.
	if err := h.publish(); err != nil {
		t.Fatalf("the holder, going on: %v", err)
	}
	if s, err := f.mem.State(testScope, testEpoch); err != nil || s != StatePublished || f.mem.Charges() != 1 {
		t.Fatalf("state %v, %v, %d charges; want published, one charge", s, err, f.mem.Charges())
	}
}

// Starting a run marks abandoned only the expired runs of its own command
// and scope: a run of another scope leaves a dead holder alone (on Neo4j
// its record may be locked by a paused process), the next run of the
// holder's scope takes it for dead.
func TestStartRunAbandonsOnlyItsScope(t *testing.T) {
	f := newFixture(t)
	f.chargedHolder("r1")
	f.now = f.now.Add(2 * lease)
	rec := func(id, scope string) connector.RunRecord {
		return connector.RunRecord{RunID: id, Command: "release", Scope: scope, Epoch: testEpoch}
	}
	status := func() string {
		for _, r := range f.mem.Runs() {
			if r.RunID == "r1" {
				return r.Status
			}
		}
		return ""
	}
	if _, err := f.mem.StartRun(context.Background(), rec("other", "another-scope"), lease); err != nil {
		t.Fatal(err)
	}
	if _, err := f.mem.StartRun(context.Background(), connector.RunRecord{RunID: "loc", Command: "locate", Scope: testScope}, lease); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != connector.StatusRunning {
		t.Fatalf("a run of another scope or command marked the holder %q", s)
	}
	if _, err := f.mem.StartRun(context.Background(), rec("r2", testScope), lease); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != connector.StatusAbandoned {
		t.Fatalf("the next release of the holder's scope left it %q, want abandoned", s)
	}
}

// stalledServer is a stalledRecord on a server that stopped answering
// once the start waited: the read that tells whose lock it was fails too.
type stalledServer struct{ *stalledRecord }

func (s stalledServer) FindRelease(ctx context.Context, scope, epoch string) (*connector.RunRecord, error) {
	if len(s.bounds) > 0 {
		return nil, &connector.UnreachableError{Op: "find release run", Err: errors.New("no answer")}
	}
	return s.Memory.FindRelease(ctx, scope, epoch)
}

// A lock wait that ran out on a server that then answers no read either
// is a timeout (exit 4), not a holder that may still publish; the text of
// a lock held by another transaction than the holder's names no run.
func TestLockWaitOnStalledServer(t *testing.T) {
	f := newFixture(t)
	f.chargedHolder("r1")
	spec := f.spec("r2")
	spec.Wait = lease + 10*time.Second
	env := f.env()
	env.Backend = stalledServer{&stalledRecord{Memory: f.mem, f: f, holder: "r1"}}
	p, err := PlanRelease(context.Background(), spec, env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Execute(context.Background(), p)
	if errkind.Of(err) != errkind.Unreachable || !errors.As(err, new(*connector.LockWaitError)) || errors.As(err, new(*HolderStalledError)) {
		t.Fatalf("waiter on a stalled server: %v (%T, kind %v); want the lock wait's timeout (exit 4)", err, err, errkind.Of(err))
	}
	msg := errkind.Render(&HolderStalledError{Scope: testScope, Epoch: testEpoch, Wait: 10 * time.Second},
		func(p errkind.Param) string { return "--" + string(p) })
	if !strings.Contains(msg, "gave up after --wait 10s") || !strings.Contains(msg, "re-run once it ends") ||
		strings.Contains(msg, "%!") || advisesSecondCharge(errors.New(msg)) {
		t.Errorf("a lock held by another transaction: %q", msg)
	}
}

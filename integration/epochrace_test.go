//go:build unix

package integration

import (
	"bytes"
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
		if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
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
	t.Run("stopped after its charge", func(t *testing.T) { deadHolder(t, false) })
	t.Run("stopped inside its record update", func(t *testing.T) { deadHolder(t, true) })
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

//go:build unix

package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
// expired, naming it — and when it wakes up, it can no longer publish
// (its lease is lost: exit 7 too, no value written), so their advice of a
// new epoch was right.
func TestEpochChargedByDeadHolder(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{150, 150}, 0.06, 0.004)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	holder, epoch, holderID := pausedHolder(t, e, "--lease", "6s")
	racers := make([]*releaseProc, 2)
	for i := range racers {
		racers[i] = startRelease(t, e, e.releaseArgs(epoch, "--wait", "5m"))
	}
	results := make([]cliResult, len(racers))
	for i, p := range racers {
		results[i] = p.wait(t, 5*time.Minute)
	}
	// The stop can land while the holder's store is in flight: its values
	// are then stored after all, and the waiters rightly resume them (no
	// new charge) — a different case, not this test's.
	stored := query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) RETURN coalesce(r.valuesStored, false)", map[string]any{"id": holderID})
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
	if err := holder.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	r := holder.wait(t, 5*time.Minute)
	switch {
	case r.Code != 7:
		t.Errorf("the holder woke up after its lease expired: exit %d; want 7 (lease lost)\n%s", r.Code, r.Stderr)
	case !strings.Contains(r.Stderr, "lost its lease"):
		// Known: a holder stopped inside a transaction waits on its own
		// run-record update until the transaction timeout and says so,
		// with the old advice, instead of "lost its lease" (exit 7 and
		// nothing published either way, checked below).
		t.Logf("the woken holder exited 7 without naming its lost lease:\n%s", r.Stderr)
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

package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// budget --init --ledger neo4j persists the scope
// (a :GraphcloakLedger node with the totals), budget reads it back, an
// unknown scope exits 3 naming the --init command, re-init with other
// totals is refused, and a release that passes its own (larger) totals
// never creates a scope.
func TestBudgetInitNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	conn := []string{"--ledger", "neo4j", "--uri", s.URI, "--user", s.User}
	scope := e.scope + "_b"
	t.Cleanup(func() {
		query(t, d, "MATCH (l:GraphcloakLedger) WHERE l.scope STARTS WITH $s DELETE l", map[string]any{"s": e.scope})
	})
	budget := func(args ...string) cliResult {
		return runCLI(t, s.Password, append(append([]string{"budget"}, conn...), args...)...)
	}
	if r := budget("--init", "--scope", scope, "--epsilon-total", "1", "--delta-total", "1e-6"); r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	recs := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.epsilon, l.delta, l.releases", map[string]any{"s": scope})
	if len(recs) != 1 || recs[0].Values[0] != 1.0 || recs[0].Values[1] != 1e-6 || recs[0].Values[2] != int64(0) {
		t.Fatalf("ledger node after budget --init: %v", recs)
	}
	r := budget("--scope", scope, "-o", "json")
	var out struct {
		Budget struct{ Epsilon, Delta float64 }
		Scopes []struct{ Scope string }
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || out.Budget.Epsilon != 1 || out.Budget.Delta != 1e-6 ||
		len(out.Scopes) != 1 || out.Scopes[0].Scope != scope {
		t.Fatalf("budget --scope: exit %d: %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := budget("--scope", scope+"_unknown"); r.Code != 3 || !strings.Contains(r.Stderr, "budget --init --ledger neo4j --scope "+scope+"_unknown") {
		t.Errorf("unknown scope: exit %d: %s", r.Code, r.Stderr)
	}
	if r := budget("--init", "--scope", scope, "--epsilon-total", "5", "--delta-total", "1e-6"); r.Code != 3 {
		t.Errorf("re-init with other totals: exit %d: %s", r.Code, r.Stderr)
	}
	if recs := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.epsilon", map[string]any{"s": scope}); recs[0].Values[0] != 1.0 {
		t.Errorf("re-init changed the budget to %v", recs[0].Values[0])
	}
	// A release with its own larger totals on a scope never created.
	args := replaceFlag(e.releaseArgs("E1", "--epsilon-total", "100"), "--scope", scope+"_new")
	r = runCLI(t, s.Password, args...)
	if r.Code != 3 || !strings.Contains(r.Stderr, "budget --init") {
		t.Errorf("release on a scope never created: exit %d: %s", r.Code, r.Stderr)
	}
	if n := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN count(l)", map[string]any{"s": scope + "_new"}); n[0].Values[0] != int64(0) {
		t.Error("a release created a ledger scope")
	}
	if propertyKeys(t, d)[e.write] {
		t.Error("the refused release wrote values")
	}
}

// releaseJSON runs a release and returns its -o json summary.
func releaseJSON(t *testing.T, e *e2e, args []string) map[string]any {
	t.Helper()
	r := runCLI(t, e.s.Password, args...)
	if r.Code != 0 {
		t.Fatalf("release: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &m); err != nil {
		t.Fatalf("release -o json: %v\n%s", err, r.Stdout)
	}
	return m
}

// After a later release B writes the same property,
// unmask and locate --release-run A refuse (exit 3) and name B, and A's
// run record says it was superseded by B. Before, both exited 0 with B's
// values under A's σ and noise.
func TestReleaseRunBoundToItsValues(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{15, 15}, 0.4, 0.05)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DETACH DELETE r", map[string]any{"p": e.scope})
	})
	key := filepath.Join(t.TempDir(), "noise.key")
	if r := runCLI(t, s.Password, "keygen", "--out", key); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	a := releaseJSON(t, e, e.releaseArgs("epoch-A", "--key", key))["runId"].(string)
	unmask := func(run string) cliResult {
		args := append([]string{"unmask", "--key", key}, e.projectionFlags()...)
		return runCLI(t, s.Password, append(args, "--release-run", run, "-o", "json")...)
	}
	if r := unmask(a); r.Code != 0 {
		t.Fatalf("unmask A before B: exit %d: %s", r.Code, r.Stderr)
	}
	// B overwrites half of the nodes (a second projection on the same label).
	half := query(t, d, "MATCH (n:`"+f.Label+"`) WITH n ORDER BY n.key LIMIT 15 SET n:`"+f.Label+"_half` RETURN count(n)", nil)
	if half[0].Values[0] != int64(15) {
		t.Fatal("fixture: could not label half of the nodes")
	}
	argsB := replaceFlag(e.releaseArgs("epoch-B", "--key", key), "--node-labels", f.Label+"_half")
	b := releaseJSON(t, e, argsB)["runId"].(string)

	rr := runRecord(t, d, a)
	if rr["status"] != "superseded" || rr["supersededBy"] != b {
		t.Errorf("run A's record: status %v, supersededBy %v; want superseded by %s", rr["status"], rr["supersededBy"], b)
	}
	if r := unmask(a); r.Code != 3 || !strings.Contains(r.Stderr, b) {
		t.Errorf("unmask --release-run A after B: exit %d, want 3 naming %s: %s", r.Code, b, r.Stderr)
	}
	if r := runCLI(t, s.Password, e.locateArgs(a)...); r.Code != 3 || !strings.Contains(r.Stderr, b) {
		t.Errorf("locate --release-run A after B: exit %d, want 3 naming %s: %s", r.Code, b, r.Stderr)
	}
	// B's values on the whole label are not all B's either (A's remain on
	// the other half): unmask B over the full projection refuses, naming A.
	if r := unmask(b); r.Code != 3 || !strings.Contains(r.Stderr, a) {
		t.Errorf("unmask B over the full label: exit %d, want 3 naming %s: %s", r.Code, a, r.Stderr)
	}
	// The run record names its write property: unmask needs no --released-property.
	argsU := append([]string{"unmask", "--key", key}, replaceFlag(e.projectionFlags(), "--node-labels", f.Label+"_half")...)
	if r := runCLI(t, s.Password, append(argsU, "--release-run", b)...); r.Code != 0 {
		t.Errorf("unmask B over its own projection: exit %d: %s", r.Code, r.Stderr)
	}
}

// A release killed (SIGKILL) half-way through its
// write-back leaves a partial property and a "running" record; once its
// lease has expired the next run marks it abandoned, and re-running the
// same command with the same --epoch finishes the write with exactly the
// stored values — no second charge, exit 0 — under the same run record.
func TestKilledReleaseResumes(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{100, 100}, 0.08, 0.005)
	f.load(t, d)
	n := len(f.Keys)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (x:GraphcloakRun {scope: $p}) WITH collect(x.runId) AS ids "+
			"MATCH (r) WHERE (r:GraphcloakRun OR r:GraphcloakReleaseValues) AND r.runId IN ids DETACH DELETE r", map[string]any{"p": e.scope})
	})
	args := e.releaseArgs("epoch-K", "--batch-size", "1", "--lease", "2s")
	cmd := exec.Command(graphcloakBinary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+s.Password)
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen int64
	deadline := time.Now().Add(3 * time.Minute)
	for seen < 5 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no values written within 3 minutes: %s", se.String())
		}
		time.Sleep(10 * time.Millisecond)
		seen = countWritten(t, d, f.Label, e.write)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	partial := countWritten(t, d, f.Label, e.write)
	if partial >= int64(n) {
		t.Skipf("the release finished before the kill (%d values); nothing to resume", partial)
	}
	runs := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, epoch: 'epoch-K'}) RETURN r.runId, r.status, r.valuesStored", map[string]any{"s": e.scope})
	if len(runs) != 1 || runs[0].Values[1] != "running" || runs[0].Values[2] != true {
		t.Fatalf("killed run records: %v, want one running record with stored values", runs)
	}
	killed := runs[0].Values[0].(string)
	t.Logf("killed run %s after %d of %d values", killed, partial, n)
	stored := map[string]int64{}
	for _, r := range query(t, d, "MATCH (v:GraphcloakReleaseValues {runId: $id}) UNWIND range(0, size(v.keys)-1) AS i RETURN v.keys[i], v.grid[i]",
		map[string]any{"id": killed}) {
		stored[r.Values[0].(string)] = r.Values[1].(int64)
	}

	// The lease expires; the next run (here another release) marks it abandoned.
	time.Sleep(2500 * time.Millisecond)
	other := replaceFlag(replaceFlag(e.releaseArgs("epoch-other"), "--write-property", e.write+"_o"), "--node-labels", f.Label)
	releaseJSON(t, e, other)
	if rr := runRecord(t, d, killed); rr["status"] != "abandoned" {
		t.Fatalf("expired run status %v, want abandoned", rr["status"])
	}

	// Retry: same command, same epoch.
	res := releaseJSON(t, e, e.releaseArgs("epoch-K", "--batch-size", "50"))
	if res["runId"] != killed || res["resumed"] != true {
		t.Errorf("retry summary: runId %v resumed %v, want %s resumed", res["runId"], res["resumed"], killed)
	}
	if l := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope}); l[0].Values[0] != int64(2) {
		t.Fatalf("ledger releases = %v, want 2 (epoch-K once, epoch-other once)", l[0].Values[0])
	}
	rr := runRecord(t, d, killed)
	if rr["status"] != "succeeded" || rr["attempts"] != int64(2) || rr["nodePropertiesWritten"] != int64(n) {
		t.Fatalf("resumed run record: %v", rr)
	}
	var meta struct {
		GridExponent int `json:"gridExponent"`
	}
	json.Unmarshal([]byte(rr["releaseMeta"].(string)), &meta)
	vals := nodeValues(t, d, f.Label, e.write)
	if len(vals) != n {
		t.Fatalf("%d of %d nodes have a value after the retry", len(vals), n)
	}
	for k, v := range vals {
		want := math.Ldexp(float64(stored[strconv.FormatInt(k, 10)]), -meta.GridExponent)
		if v != want {
			t.Fatalf("node %d: %v, want the stored value %v", k, v, want)
		}
	}
	if r := query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.`"+e.write+"_runId` <> $id RETURN count(n)", map[string]any{"id": killed}); r[0].Values[0] != int64(0) {
		t.Errorf("%v nodes are not bound to the resumed run", r[0].Values[0])
	}
	// A completed epoch re-run is a no-op success.
	if res := releaseJSON(t, e, e.releaseArgs("epoch-K")); res["alreadyPublished"] != true {
		t.Errorf("re-run of the completed epoch: %v", res)
	}
	sigma, _ := rr["sigma"].(float64)
	checkNoise(t, f, vals, sigma)
}

// A server that accepts the socket but never
// answers Bolt is given up after --connect-timeout (exit 4), and a
// transaction that the server cannot finish (a write blocked by another
// transaction's lock) is ended by --transaction-timeout: exit 4, and the
// run record says failed.
func TestStalledServerTimeouts(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, never answer
		}
	}()
	r := runCLI(t, s.Password, "budget", "--ledger", "neo4j", "--uri", "bolt://"+ln.Addr().String(), "--connect-timeout", "2")
	if r.Code != 4 || !strings.Contains(r.Stderr, "unreachable") {
		t.Errorf("silent socket: exit %d, want 4: %s", r.Code, r.Stderr)
	}

	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun {scope: $p}) DETACH DELETE r", map[string]any{"p": e.scope})
	})
	// Another transaction holds the write lock of every fixture node.
	ctx := ctxT(t)
	sess := d.NewSession(ctx, neo4j.SessionConfig{DatabaseName: "neo4j"})
	defer sess.Close(ctx)
	tx, err := sess.BeginTransaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Run(ctx, "MATCH (n:`"+f.Label+"`) SET n.locked = true", nil); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, s.Password, e.releaseArgs("epoch-stalled", "--transaction-timeout", "2")...)
	if r.Code != 4 || !strings.Contains(r.Stderr, "did not answer within") {
		t.Fatalf("blocked write: exit %d, want 4 (timeout): %s", r.Code, r.Stderr)
	}
	runs := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, epoch: 'epoch-stalled'}) RETURN r.status, r.error", map[string]any{"s": e.scope})
	if len(runs) != 1 || runs[0].Values[0] != "failed" {
		t.Fatalf("run records after the timeout: %v, want one failed", runs)
	}
}

// A release of an explicit epoch that failed before charging (here: a
// missing value property) is not charged: re-running it with the error
// fixed releases normally (exit 0, one charge).
func TestFailedBeforeChargeRetries(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun {scope: $p}) DETACH DELETE r", map[string]any{"p": e.scope})
	})
	bad := replaceFlag(e.releaseArgs("epoch-F"), "--value-property", "noSuchProperty")
	if r := runCLI(t, s.Password, bad...); r.Code != 3 {
		t.Fatalf("release with a property the database lacks: exit %d, want 3: %s", r.Code, r.Stderr)
	}
	res := releaseJSON(t, e, e.releaseArgs("epoch-F"))
	if res["resumed"] == true || res["alreadyPublished"] == true || res["nodePropertiesWritten"] != float64(len(f.Keys)) {
		t.Errorf("retry after a failure before the charge: %v", res)
	}
	if l := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope}); l[0].Values[0] != int64(1) {
		t.Errorf("ledger releases %v, want 1", l[0].Values[0])
	}
}

// Against the real server: a 65-byte write property
// and a 100 000-character scope are refused (exit 3) before anything is
// charged or recorded.
func TestRefusedBeforeChargeNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	for name, args := range map[string][]string{
		"65-byte write property": replaceFlag(e.releaseArgs("E5"), "--write-property", strings.Repeat("w", 65)),
		"100000-character scope": replaceFlag(e.releaseArgs("E5"), "--scope", strings.Repeat("s", 100000)),
	} {
		if r := runCLI(t, s.Password, args...); r.Code != 3 {
			t.Errorf("%s: exit %d, want 3: %s", name, r.Code, r.Stderr)
		}
	}
	if l := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope}); l[0].Values[0] != int64(0) {
		t.Errorf("ledger releases %v after refused inputs, want 0", l[0].Values[0])
	}
	if n := query(t, d, "MATCH (r:GraphcloakRun {scope: $s}) RETURN count(r)", map[string]any{"s": e.scope}); n[0].Values[0] != int64(0) {
		t.Errorf("%v run records after refused inputs, want 0", n[0].Values[0])
	}
}

// freezingProxy forwards TCP to a Neo4j server until freeze is called;
// from then on it forwards nothing (a server that stalls mid-run).
type freezingProxy struct {
	ln     net.Listener
	target string
	frozen chan struct{}
	closed chan struct{} // closed at the end of the test: frozen pipes exit
}

func newFreezingProxy(t *testing.T, target string) *freezingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezingProxy{ln: ln, target: target, frozen: make(chan struct{}), closed: make(chan struct{})}
	t.Cleanup(func() { ln.Close(); close(p.closed) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *freezingProxy) serve(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if err != nil {
				return
			}
			select {
			case <-p.frozen:
				<-p.closed // hold the connection, never answer
				return
			default:
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
	}
	go pipe(s, c)
	pipe(c, s)
}

func (p *freezingProxy) freeze() { close(p.frozen) }

// A server that stops answering in the middle of a release (no error, no
// close: silence) is given up by the client after the transaction
// timeout plus the acquisition timeout: exit 4.
func TestStalledServerClientDeadline(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{100, 100}, 0.08, 0.005)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun {scope: $p}) DETACH DELETE r", map[string]any{"p": e.scope})
	})
	target := strings.TrimPrefix(s.URI, "bolt://")
	if strings.Contains(target, "://") {
		t.Skipf("needs a bolt:// URI, got %s", s.URI)
	}
	p := newFreezingProxy(t, target)
	args := replaceFlag(e.releaseArgs("epoch-frozen", "--batch-size", "1", "--transaction-timeout", "2", "--acquisition-timeout", "2"),
		"--uri", "bolt://"+p.ln.Addr().String())
	cmd := exec.Command(graphcloakBinary(t), args...)
	cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+s.Password)
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for countWritten(t, d, f.Label, e.write) < 5 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done // stderr is complete (and no longer written) once the process is reaped
			t.Fatalf("no values written: %s", se.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.freeze()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 4 {
			t.Fatalf("release after the server froze: %v, want exit 4\n%s", err, se.String())
		}
		if !strings.Contains(se.String(), "did not answer within") {
			t.Errorf("stderr does not name the timeout: %s", se.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("release still running 2 minutes after the server froze: %s", se.String())
	}
}

// locate --release-run refuses a graph that changed after the release
// (here one relationship's weight), naming what differs.
func TestLocateRefusesChangedGraph(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{30, 30}, 0.2, 0.02, 31)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	rel := releaseJSON(t, e, e.releaseArgs("epoch-fp"))
	if r := runCLI(t, s.Password, e.locateArgs(rel["runId"].(string))...); r.Code != 0 {
		t.Fatalf("locate on the released graph: exit %d: %s", r.Code, r.Stderr)
	}
	query(t, d, "MATCH (:`"+f.Label+"`)-[r:`"+f.RelType+"`]->(:`"+f.Label+"`) WITH r LIMIT 1 SET r.w = r.w * 2", nil)
	r := runCLI(t, s.Password, e.locateArgs(rel["runId"].(string))...)
	if r.Code != 3 || !strings.Contains(r.Stderr, "not the one this release was made on") {
		t.Fatalf("locate after a weight changed: exit %d, want 3 naming the difference: %s", r.Code, r.Stderr)
	}
}

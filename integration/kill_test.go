//go:build unix

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// ownServerJavaOpts are the JVM options of the servers a test starts for
// itself (ownServer, the guide's): C1 only. They live for a minute, and
// three start at once, so C2's compiles of their start-up code cost more
// than its faster code gains (the kill, sandbox and guide tests together:
// 101–108 s with C2, 69–77 s without). The shared server keeps C2: over
// the whole suite its planner's compiled code pays for itself (554 s
// against 606 s for the integration package).
const ownServerJavaOpts = "GRAPHCLOAK_NEO4J_JAVA_OPTS=-XX:TieredStopAtLevel=1"

// ownServer is a second Neo4j started by the test itself (scripts/neo4j.sh
// on a free port and its own data directory), so that killing it never
// disturbs the shared server.
type ownServer struct {
	t    testing.TB
	root string
	dir  string
	pw   string
	env  []string // more environment for scripts/neo4j.sh
}

func (o *ownServer) start() server {
	o.t.Helper()
	t0 := time.Now()
	cmd := exec.Command("bash", filepath.Join(o.root, "scripts", "neo4j.sh"), "start", o.dir, "0")
	// The server stops by itself if this test process dies (killed go test).
	cmd.Env = append(cliEnv(), "NEO4J_PASSWORD="+o.pw, "GRAPHCLOAK_NEO4J_WATCH_PID="+strconv.Itoa(os.Getpid()), ownServerJavaOpts)
	cmd.Env = append(cmd.Env, o.env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		o.t.Fatalf("scripts/neo4j.sh start %s: %v\n%s", o.dir, err, se.String())
	}
	var uri string
	for _, line := range strings.Split(so.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "NEO4J_URI="); ok {
			uri = strings.TrimSpace(v)
		}
	}
	if uri == "" {
		o.t.Fatalf("scripts/neo4j.sh printed no NEO4J_URI: %s", so.String())
	}
	o.t.Logf("own neo4j at %s up in %.1f s", uri, time.Since(t0).Seconds())
	return server{URI: uri, User: "neo4j", Password: o.pw}
}

func (o *ownServer) pid() int {
	o.t.Helper()
	b, err := os.ReadFile(filepath.Join(o.dir, "neo4j.pid"))
	if err != nil {
		o.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		o.t.Fatal(err)
	}
	return pid
}

func (o *ownServer) stop() {
	cmd := exec.Command("bash", filepath.Join(o.root, "scripts", "neo4j.sh"), "stop", o.dir)
	cmd.Env = cliEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		o.t.Logf("scripts/neo4j.sh stop: %v\n%s", err, out)
	}
}

// TestKillDuringWriteBack kills (SIGKILL) a Neo4j server in the middle of
// a release's write-back: the release must exit non-zero, the run must not
// be recorded as succeeded, the committed batches must survive the
// restart, the ledger must keep the charge (never refunded), and a re-run
// after the restart must complete with every value written.
func TestKillDuringWriteBack(t *testing.T) {
	// Its own server: it runs beside the other tests.
	t.Parallel()
	shared := neo4jServer(t) // skip/fail exactly like the other tests
	_ = shared
	if testing.Short() {
		t.Skip("starts and kills its own Neo4j server; skipped with -short")
	}
	o := &ownServer{t: t, root: repoRoot(t), dir: filepath.Join(t.TempDir(), "neo4j"), pw: "graphcloak-kill-test"}
	s := o.start()
	t.Cleanup(o.stop)
	d, err := neo4j.NewDriverWithContext(s.URI, neo4j.BasicAuth(s.User, s.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { d.Close(context.Background()) }()

	// 300 nodes: at one node per write transaction the write-back takes
	// hundreds of commits, and the kill comes after the first.
	f := connectedSBM(t, []int{100, 100, 100}, 0.09, 0.003)
	f.Label, f.RelType, f.Keep = "KillNode", "KILL_REL", true
	f.load(t, d)
	n := len(f.Keys)
	e := newE2E(t, s, d, f)

	// A release with one node per write transaction, so the write-back
	// lasts long enough to be interrupted. Its lease is short, so that the
	// re-run after the restart finds the killed run abandoned instead of
	// waiting out the default two minutes for its lease to lapse; so is
	// its transaction timeout, which bounds its retries against the killed
	// server (30 s by default).
	cmd := exec.Command(graphcloakBinary(t), e.releaseArgs("epoch-killed", "--batch-size", "1", "--lease", "20s", "--transaction-timeout", "10s")...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+s.Password)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Wait until some, not all, values are committed, then kill the server.
	var seen int64
	deadline := time.Now().Add(5 * time.Minute)
	for seen == 0 {
		select {
		case err := <-done:
			t.Fatalf("release ended before the kill (err %v)\nstdout: %s\nstderr: %s", err, so.String(), se.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no value written within 5 minutes\nstderr: %s", se.String())
		}
		seen = countWritten(t, d, f.Label, e.write)
		if seen == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	pid := o.pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill neo4j pid %d: %v", pid, err)
	}
	t.Logf("killed neo4j (pid %d) after %d of %d values were committed", pid, seen, n)
	d.Close(context.Background())

	var exitErr *exec.ExitError
	select {
	case err := <-done:
		if !errors.As(err, &exitErr) {
			t.Fatalf("release after the kill: err = %v, want a non-zero exit\nstdout: %s\nstderr: %s", err, so.String(), se.String())
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("release still running 3 minutes after the kill\nstderr: %s", se.String())
	}
	if c := exitErr.ExitCode(); c != 4 && c != 6 {
		t.Errorf("exit %d after the kill, want 4 (unreachable) or 6 (query failed)", c)
	}
	t.Logf("release exit %d: %s", exitErr.ExitCode(), lastLine(se.String()))
	var runID string
	var partial map[string]any
	if json.Unmarshal(so.Bytes(), &partial) == nil {
		runID, _ = partial["runId"].(string)
	}

	// Restart on the same data: the committed batches are there, the run is
	// not recorded as succeeded, the charge is kept.
	os.Remove(filepath.Join(o.dir, "neo4j.pid"))
	s = o.start()
	d, err = neo4j.NewDriverWithContext(s.URI, neo4j.BasicAuth(s.User, s.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	after := countWritten(t, d, f.Label, e.write)
	if after < seen || after >= int64(n) {
		t.Fatalf("after restart %d values, want between %d (committed before the kill) and %d", after, seen, n-1)
	}
	runs := runsWriting(t, d, e.write)
	if len(runs) != 1 || runs[0]["status"] == "succeeded" {
		t.Fatalf("run records after the kill: %v", runs)
	}
	if runID != "" && runs[0]["runId"] != runID {
		t.Errorf("run record %v, want %s", runs[0]["runId"], runID)
	}
	if l := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope}); len(l) != 1 || l[0].Values[0] != int64(1) {
		t.Fatalf("ledger after the kill: %v (the charge must be kept)", l)
	}

	// Re-run after the restart (a new epoch: the killed one was charged and
	// must never be re-drawn).
	rerun := time.Now()
	r := runCLI(t, s.Password, e.releaseArgs("epoch-rerun", "--batch-size", "500")...)
	t.Logf("re-run: exit %d in %.1f s", r.Code, time.Since(rerun).Seconds())
	if r.Code != 0 {
		t.Fatalf("re-run: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var rel map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &rel); err != nil {
		t.Fatal(err)
	}
	sigma, _ := rel["sigma"].(float64)
	checkNoise(t, f, nodeValues(t, d, f.Label, e.write), sigma)
	id, _ := rel["runId"].(string)
	rr := runRecord(t, d, id)
	if rr["status"] != "succeeded" || rr["nodePropertiesWritten"] != int64(n) {
		t.Fatalf("re-run record %v", rr)
	}
	if l := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope}); l[0].Values[0] != int64(2) {
		t.Fatalf("ledger after the re-run: %v releases, want 2", l[0].Values[0])
	}
	d.Close(context.Background())
}

func countWritten(t testing.TB, d neo4j.DriverWithContext, label, prop string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := neo4j.ExecuteQuery(ctx, d, "MATCH (n:`"+label+"`) WHERE n.`"+prop+"` IS NOT NULL RETURN count(n)", nil,
		neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j"))
	if err != nil {
		t.Fatalf("count written: %v", err)
	}
	return res.Records[0].Values[0].(int64)
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

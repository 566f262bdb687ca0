//go:build unix

package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Two releases of one slot started together (two cron hosts, a retry
// racing the original): both exit 0, exactly one publishes, the other
// finds the epoch published, and the ledger holds one charge per epoch.
func TestConcurrentReleasesOneCharge(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{60, 60}, 0.15, 0.01, 11)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	epochs := []string{"slot-1", "slot-2", "slot-3"}
	for _, epoch := range epochs {
		var wg sync.WaitGroup
		res := make([]cliResult, 2)
		for i := range res {
			wg.Add(1)
			go func() { defer wg.Done(); res[i] = runCLI(t, s.Password, e.releaseArgs(epoch)...) }()
		}
		wg.Wait()
		published := 0
		for _, r := range res {
			if r.Code != 0 {
				t.Fatalf("%s: a concurrent release exited %d: %s", epoch, r.Code, r.Stderr)
			}
			var sum struct{ AlreadyPublished bool }
			if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
				t.Fatalf("%s: %v\n%s", epoch, err, r.Stdout)
			}
			if !sum.AlreadyPublished {
				published++
			}
		}
		if published != 1 {
			t.Errorf("%s: %d of 2 concurrent releases published, want exactly 1", epoch, published)
		}
	}
	charges := map[string]int{}
	for _, r := range query(t, d, "MATCH (c:GraphcloakCharge {scope: $s}) RETURN c.releaseId", map[string]any{"s": e.scope}) {
		charges[fmt.Sprint(r.Values[0])]++
	}
	if len(charges) != len(epochs) {
		t.Errorf("charges by release: %v, want one for each of %v", charges, epochs)
	}
	for id, n := range charges {
		if n != 1 {
			t.Errorf("release %s charged %d times", id, n)
		}
	}
	rel := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'release'}) RETURN r.epoch, r.status", map[string]any{"s": e.scope})
	if len(rel) != len(epochs) {
		t.Errorf("%d release run records, want %d (the waiting run never starts one): %v", len(rel), len(epochs), rel)
	}
}

// The same for releases to a file with a file ledger (two cron jobs on
// one host, a retry racing the original): the second waits for the
// first's --out to be committed, then finds the epoch published and exits
// 0, instead of "charged but cannot be published" (exit 7), which before
// the --out lock hit about one pair in three. One charge per epoch.
func TestConcurrentFileReleasesOneCharge(t *testing.T) {
	dir := t.TempDir()
	readings := filepath.Join(dir, "readings.csv")
	var csv strings.Builder
	csv.WriteString("node,value\n")
	for k := 1; k <= 34; k++ {
		fmt.Fprintf(&csv, "%d,%g\n", k, float64(k)/34)
	}
	if err := os.WriteFile(readings, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(dir, "ledger.json")
	if r := runCLI(t, "", "budget", "--init", "--ledger", ledger, "--epsilon-total", "100", "--delta-total", "1e-3"); r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	const epochs = 10
	for e := range epochs {
		epoch, out := fmt.Sprintf("E%d", e), filepath.Join(dir, fmt.Sprintf("release-%d.json", e))
		var wg sync.WaitGroup
		res := make([]cliResult, 2)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = runCLI(t, "", "release", "--graph", "karate", "--values", readings, "--tau", "1", "--ledger", ledger,
					"--epoch", epoch, "--out", out, "-o", "json")
			}()
		}
		wg.Wait()
		published := 0
		type summary struct {
			AlreadyPublished  bool
			Delta2            float64
			Delta2Exact       bool
			SensitivityMethod string
			ReleaseID         string
		}
		sums := make([]summary, 2)
		for i, r := range res {
			if err := json.Unmarshal([]byte(r.Stdout), &sums[i]); r.Code != 0 || err != nil {
				t.Fatalf("%s: a concurrent release exited %d (%v): %s", epoch, r.Code, err, r.Stderr)
			}
			if !sums[i].AlreadyPublished {
				published++
			}
		}
		// The no-op reports the published release as it was made.
		if a, b := sums[0], sums[1]; a.Delta2 != b.Delta2 || a.Delta2Exact != b.Delta2Exact || !a.Delta2Exact ||
			a.SensitivityMethod != b.SensitivityMethod || a.ReleaseID != b.ReleaseID {
			t.Errorf("%s: the two summaries disagree on the release: %+v, %+v", epoch, a, b)
		}
		if published != 1 {
			t.Errorf("%s: %d of 2 concurrent releases published, want exactly 1", epoch, published)
		}
		if _, err := privacy.ReadReleaseFile(out); err != nil {
			t.Errorf("%s: %v", epoch, err)
		}
	}
	r := runCLI(t, "", "budget", "--ledger", ledger, "-o", "json")
	var b struct {
		Scopes []struct{ Releases int }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &b); r.Code != 0 || err != nil || len(b.Scopes) != 1 || b.Scopes[0].Releases != epochs {
		t.Errorf("ledger after %d epochs released twice each: exit %d, %s", epochs, r.Code, r.Stdout)
	}
}

// serve on a scope whose budget holds only a few releases: the releases
// that fit are charged once each (Δ2 computed once, then reused from the
// cache), the next slots are refused by the budget — nothing written,
// counted in /metrics — while locate goes on with the last release; every
// log line of a step names its run; SIGTERM stops it with exit 0.
func TestServeBudgetExhaustion(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{40, 40, 40}, 0.2, 0.01, 12)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	e.scope += "_small"
	if r := runCLI(t, s.Password, "budget", "--init", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User,
		"--scope", e.scope, "--epsilon-total", "1.5", "--delta-total", "1e-5"); r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	t.Cleanup(func() {
		deleteScopeRuns(t, d, e.scope)
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
	})
	cache := filepath.Join(t.TempDir(), "delta2.json")
	addr := freeAddr(t)
	args := append([]string{"serve", "--schedule", "@every 1s", "--listen", addr, "--log-format", "json"}, e.projectionFlags()...)
	args = append(args, "--value-property", "obs", "--write-property", e.write, "--tau", "0.5", "--epsilon", "1",
		"--delta", "1e-5", "--ledger", "neo4j", "--scope", e.scope, "--sensitivity-cache", cache,
		"--communities", "property:community", "--mass-property", e.mass, "--community-write-property", e.comm,
		"--probability-property", e.prob, "--rank-property", e.rank)
	srv := startServe(t, s, args)
	m := srv.waitMetrics(t, addr, 4*time.Minute, func(m map[string]float64) bool {
		return m[`graphcloak_budget_refusals_total{scope="`+e.scope+`"}`] >= 1 &&
			m[`graphcloak_runs_total{command="locate",status="succeeded"}`] >= 3
	})
	srv.stop(t, syscall.SIGTERM, 0)

	succeeded := m[`graphcloak_runs_total{command="release",status="succeeded"}`]
	if succeeded < 1 || m[`graphcloak_runs_total{command="release",status="refused"}`] < 1 {
		t.Fatalf("metrics: %v", m)
	}
	if m[`graphcloak_privacy_rho_remaining{scope="`+e.scope+`"}`] >= m[`graphcloak_privacy_rho_spent{scope="`+e.scope+`"}`] {
		t.Errorf("the budget is refused yet ρ remaining %v ≥ ρ spent %v", m[`graphcloak_privacy_rho_remaining{scope="`+e.scope+`"}`],
			m[`graphcloak_privacy_rho_spent{scope="`+e.scope+`"}`])
	}
	// One charge per succeeded release; the refused slots wrote nothing.
	var rels []string
	for _, r := range query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'release'}) WHERE r.status IN ['succeeded', 'superseded'] "+
		"RETURN r.runId ORDER BY r.startedAt DESC", map[string]any{"s": e.scope}) {
		rels = append(rels, r.Values[0].(string))
	}
	led := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope})
	if len(rels) == 0 || led[0].Values[0] != int64(len(rels)) {
		t.Fatalf("%d published releases, ledger releases %v", len(rels), led[0].Values[0])
	}
	if r := query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.`"+e.write+"_runId` <> $id RETURN count(n)", map[string]any{"id": rels[0]}); r[0].Values[0] != int64(0) {
		t.Errorf("%v nodes hold values of another run than the last published release %s", r[0].Values[0], rels[0])
	}
	if len(rels) >= 2 && m["graphcloak_sensitivity_reused_total"] < 1 {
		t.Errorf("%d releases of an unchanged graph and Δ2 never reused: %v", len(rels), m)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("no sensitivity certificate cached: %v", err)
	}
	// Localisations after the refusal use the last published release.
	loc := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'locate', status: 'succeeded'}) RETURN r.parameters, r.epoch ORDER BY r.startedAt DESC LIMIT 1",
		map[string]any{"s": e.scope})
	if len(loc) != 1 || !strings.Contains(loc[0].Values[0].(string), rels[0]) {
		t.Errorf("last localisation %v does not use the last release %s", loc, rels[0])
	}
	// Every log line of a step carries its run id; the service connects
	// once, before its first slot.
	steps, connected := 0, 0
	for _, line := range strings.Split(srv.stderr.String(), "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		if l["msg"] == "connected to neo4j" {
			connected++
		}
		if l["msg"] == "released" || l["msg"] == "slot located" || l["msg"] == "graph loaded" {
			steps++
			if id, _ := l["runId"].(string); !strings.HasPrefix(id, "run-") {
				t.Errorf("log line without a run id: %s", line)
			}
		}
		if strings.Contains(line, s.Password) {
			t.Errorf("the password is in the log: %s", line)
		}
	}
	if steps == 0 {
		t.Errorf("no step logged:\n%s", srv.stderr.String())
	}
	if connected != 1 {
		t.Errorf("connected to Neo4j %d times, want once for the service:\n%s", connected, srv.stderr.String())
	}
	if !strings.Contains(srv.stderr.String(), "budget is exhausted") {
		t.Errorf("the refusal is not logged")
	}
}

// SIGTERM while a slot's release is writing, with no grace: serve exits 0,
// the run is recorded interrupted, and no release of the scope claims
// success.
func TestServeSIGTERMInterrupts(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{300, 300, 300}, 0.03, 0.001)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() { deleteScopeRuns(t, d, e.scope) })
	args := append([]string{"serve", "--schedule", "@every 1s", "--listen", "", "--grace", "0s", "--no-locate"}, e.projectionFlags()...)
	args = append(args, "--value-property", "obs", "--write-property", e.write, "--tau", "0.5", "--epsilon", "1",
		"--delta", "1e-5", "--ledger", "neo4j", "--scope", e.scope, "--batch-size", "1")
	srv := startServe(t, s, args)
	deadline := time.Now().Add(4 * time.Minute)
	for countWritten(t, d, f.Label, e.write) == 0 {
		if time.Now().After(deadline) {
			srv.stop(t, syscall.SIGKILL, -1)
			t.Fatalf("nothing written within 4 minutes:\n%s", srv.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.stop(t, syscall.SIGTERM, 0)
	runs := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'release'}) RETURN r.status", map[string]any{"s": e.scope})
	if len(runs) != 1 || runs[0].Values[0] != "interrupted" {
		t.Fatalf("release records after SIGTERM: %v, want one interrupted", runs)
	}
	if n := countWritten(t, d, f.Label, e.write); n >= int64(len(f.Keys)) {
		t.Logf("the write had finished before the signal took effect (%d values)", n)
	}
}

// serveProcess is a running graphcloak serve.
type serveProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

func startServe(t *testing.T, s server, args []string) *serveProcess {
	t.Helper()
	cmd := exec.Command(graphcloakBinary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+s.Password)
	p := &serveProcess{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = io.Discard, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

// stop signals the process and checks its exit code (−1: any).
func (p *serveProcess) stop(t *testing.T, sig syscall.Signal, want int) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		_ = p.cmd.Process.Kill()
		t.Fatalf("serve did not stop within 2 minutes of %v:\n%s", sig, p.stderr.String())
	}
	if code := p.cmd.ProcessState.ExitCode(); want >= 0 && code != want {
		t.Fatalf("serve exited %d after %v, want %d:\n%s", code, sig, want, p.stderr.String())
	}
}

// waitMetrics scrapes /metrics until ok or the deadline.
func (p *serveProcess) waitMetrics(t *testing.T, addr string, within time.Duration, ok func(map[string]float64) bool) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		m := scrape(addr)
		if m != nil && ok(m) {
			return m
		}
		select {
		case err := <-p.done:
			t.Fatalf("serve ended (%v):\n%s", err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			p.stop(t, syscall.SIGKILL, -1)
			t.Fatalf("metrics not reached within %v: %v\n%s", within, m, p.stderr.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$`)

// scrape reads a Prometheus text exposition into series → value (nil if
// the server does not answer).
func scrape(addr string) map[string]float64 {
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if g := sampleLine.FindStringSubmatch(sc.Text()); g != nil {
			if v, err := strconv.ParseFloat(g[2], 64); err == nil {
				m[g[1]] = v
			}
		}
	}
	return m
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func deleteScopeRuns(t *testing.T, d neo4j.DriverWithContext, scope string) {
	t.Helper()
	query(t, d, "MATCH (x:GraphcloakRun {scope: $s}) WITH collect(x.runId) AS ids "+
		"MATCH (r) WHERE (r:GraphcloakRun OR r:GraphcloakReleaseValues) AND r.runId IN ids DETACH DELETE r", map[string]any{"s": scope})
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// waitingParallel is how many of the parallel tests run at once unless
// -parallel says otherwise: they spend their time waiting (on a server of
// their own starting, on a stopped holder's lease or transaction timeout),
// not computing, so more of them than there are cores overlap usefully.
const waitingParallel = 8

// TestMain runs the parallel tests waitingParallel at a time and removes
// the binaries built for the end-to-end tests.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(waitingParallel)); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	for _, dir := range []string{binDir, batchDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// repoRoot is the module root (the tests run in integration/).
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// graphcloakBinary builds cmd/graphcloak once per test process, so the end
// to end tests run the real binary (its flags, environment, exit codes).
func graphcloakBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "graphcloak-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "graphcloak")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/graphcloak")
		cmd.Dir = repoRoot(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ./cmd/graphcloak: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var (
	batchOnce sync.Once
	batchPath string
	batchErr  error
	batchDir  string
)

// argvBatchBinary builds cmd/graphcloak's test binary once per test
// process: its TestArgvBatch runs command lines through the binary's own
// runArgs, many in one process (runCLIBatch).
func argvBatchBinary(t testing.TB) string {
	t.Helper()
	batchOnce.Do(func() {
		batchDir, batchErr = os.MkdirTemp("", "graphcloak-argv-")
		if batchErr != nil {
			return
		}
		batchPath = filepath.Join(batchDir, "graphcloak.test")
		cmd := exec.Command("go", "test", "-c", "-o", batchPath, "./cmd/graphcloak")
		cmd.Dir = repoRoot(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			batchErr = fmt.Errorf("go test -c ./cmd/graphcloak: %v\n%s", err, out)
		}
	})
	if batchErr != nil {
		t.Fatal(batchErr)
	}
	return batchPath
}

// runCLIBatch runs each command line as runCLI does — the same
// environment, the password in GRAPHCLOAK_NEO4J_PASSWORD — but all of them
// in one process, one after another (cmd/graphcloak's TestArgvBatch calls
// the binary's runArgs for each), and returns their results in order. For
// the thousands of command lines the injection corpus has refused before
// connecting, where starting a process is most of the cost.
func runCLIBatch(t testing.TB, password string, argvs [][]string) []cliResult {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "argv.jsonl"), filepath.Join(dir, "results.jsonl")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, argv := range argvs {
		// Each argument as bytes (base64 in JSON): a JSON string would
		// replace invalid UTF-8, and the corpus has some.
		raw := make([][]byte, len(argv))
		for i, a := range argv {
			raw[i] = []byte(a)
		}
		if err := enc.Encode(raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(in, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argvBatchBinary(t), "-test.run", "^TestArgvBatch$", "-test.count", "1")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+password, "ARGV_BATCH="+in, "ARGV_BATCH_OUT="+out)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the batch of %d command lines: %v\n%s", len(argvs), err, o)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	rs := make([]cliResult, 0, len(argvs))
	for dec.More() {
		var r struct {
			Args           [][]byte
			Code           int
			Stdout, Stderr []byte
			Drivers        int64
		}
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		if i := len(rs); i >= len(argvs) || !slices.EqualFunc(r.Args, argvs[i], func(a []byte, b string) bool { return string(a) == b }) {
			t.Fatalf("the batch's command line %d is not the one given: %q", i, r.Args)
		}
		rs = append(rs, cliResult{Code: r.Code, Stdout: string(r.Stdout), Stderr: string(r.Stderr), Drivers: r.Drivers})
	}
	if len(rs) != len(argvs) {
		t.Fatalf("the batch answered %d of %d command lines", len(rs), len(argvs))
	}
	return rs
}

// cliResult is one run of the binary.
type cliResult struct {
	Code           int
	Stdout, Stderr string
	// Drivers is how many Neo4j drivers the command line opened
	// (runCLIBatch only: counted in the process; 0 from runCLI).
	Drivers int64
}

// runCLI runs the graphcloak binary with args; the password travels in
// GRAPHCLOAK_NEO4J_PASSWORD, never on the command line.
func runCLI(t testing.TB, password string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, graphcloakBinary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+password)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := cliResult{Stdout: so.String(), Stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("run graphcloak %v: %v", args, err)
	}
	return r
}

// cliEnv is the environment without graphcloak or Neo4j settings that
// could change the runs; the user's config file is hidden too.
func cliEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GRAPHCLOAK_") || strings.HasPrefix(kv, "NEO4J_") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NO_COLOR=1", "XDG_CONFIG_HOME="+filepath.Join(os.TempDir(), "graphcloak-e2e-no-config"))
}

// e2e is one end-to-end scenario: a fixture in a server and the CLI flags
// naming it.
type e2e struct {
	s        server
	d        neo4j.DriverWithContext
	f        *fixture
	write    string // the release's write property
	scope    string // ledger scope
	mass     string
	comm     string
	prob     string
	rank     string
	tau, eps float64
}

// newE2E names the scenario's properties and creates its ledger scope
// (budget --init --ledger neo4j, ε_total 10, δ_total 1e-5).
func newE2E(t *testing.T, s server, d neo4j.DriverWithContext, f *fixture) *e2e {
	suffix := uniqueName(t, "p")
	if len(suffix) > 40 {
		suffix = suffix[len(suffix)-40:]
	}
	e := &e2e{s: s, d: d, f: f, write: "gcValue_" + suffix, scope: "scope_" + suffix,
		mass: "gcMass_" + suffix, comm: "gcCommunity_" + suffix, prob: "gcProb_" + suffix, rank: "gcRank_" + suffix,
		tau: 0.5, eps: 1}
	r := runCLI(t, s.Password, "budget", "--init", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User,
		"--scope", e.scope, "--epsilon-total", "10", "--delta-total", "1e-5")
	if r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	t.Cleanup(func() {
		// e.s, not d: a test may restart the server (kill_test.go).
		dc, err := neo4j.NewDriverWithContext(e.s.URI, neo4j.BasicAuth(e.s.User, e.s.Password, ""))
		if err != nil {
			t.Error(err)
			return
		}
		defer dc.Close(context.Background())
		query(t, dc, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
	})
	return e
}

func (e *e2e) projectionFlags() []string {
	return []string{"--graph", "neo4j", "--uri", e.s.URI, "--user", e.s.User, "--database", "neo4j",
		"--node-labels", e.f.Label, "--relationship-types", e.f.RelType,
		"--relationship-weight-property", "w", "--node-key-property", "key"}
}

func (e *e2e) releaseArgs(epoch string, extra ...string) []string {
	a := append([]string{"release"}, e.projectionFlags()...)
	a = append(a, "--value-property", "obs", "--write-property", e.write,
		"--tau", fmt.Sprint(e.tau), "--epsilon", fmt.Sprint(e.eps), "--delta", "1e-5",
		"--ledger", "neo4j", "--scope", e.scope, "--epsilon-total", "10", "--delta-total", "1e-5",
		"--epoch", epoch, "-o", "json")
	return append(a, extra...)
}

func (e *e2e) locateArgs(runID string, extra ...string) []string {
	a := append([]string{"locate"}, e.projectionFlags()...)
	a = append(a, "--released-property", e.write, "--release-run", runID,
		"--communities", "property:community",
		"--mass-property", e.mass, "--community-write-property", e.comm,
		"--probability-property", e.prob, "--rank-property", e.rank, "-o", "json")
	return append(a, extra...)
}

// runRecord reads a run record with the raw driver.
func runRecord(t testing.TB, d neo4j.DriverWithContext, runID string) map[string]any {
	t.Helper()
	recs := query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) RETURN properties(r)", map[string]any{"id": runID})
	if len(recs) != 1 {
		t.Fatalf("%d run records %q, want 1", len(recs), runID)
	}
	return recs[0].Values[0].(map[string]any)
}

// runsWriting returns the run records whose parameters name prop.
func runsWriting(t testing.TB, d neo4j.DriverWithContext, prop string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range query(t, d, "MATCH (r:GraphcloakRun) WHERE (r.parameters CONTAINS $p OR r.scope = $p OR r.writeProperty = $p) RETURN properties(r)", map[string]any{"p": prop}) {
		out = append(out, r.Values[0].(map[string]any))
	}
	return out
}

// nodeValues returns key → property value for the fixture's nodes having
// prop.
func nodeValues(t testing.TB, d neo4j.DriverWithContext, label, prop string) map[int64]any {
	t.Helper()
	m := map[int64]any{}
	for _, r := range query(t, d, "MATCH (n:`"+label+"`) WHERE n.`"+prop+"` IS NOT NULL RETURN n.key, n.`"+prop+"`", nil) {
		m[r.Values[0].(int64)] = r.Values[1]
	}
	return m
}

// checkNoise checks that released − observed looks like N(0, σ²): the
// sample mean within 5σ/√n of 0 and the sample standard deviation within
// [0.6σ, 1.5σ] (for n ≥ 50 each fails with probability < 1e-5).
func checkNoise(t testing.TB, f *fixture, released map[int64]any, sigma float64) {
	t.Helper()
	if len(released) != len(f.Keys) {
		t.Fatalf("%d nodes have a released value, want %d", len(released), len(f.Keys))
	}
	var sum, sum2 float64
	for i, k := range f.Keys {
		v, ok := released[k].(float64)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("node %d released value %v", k, released[k])
		}
		d := v - f.Obs[i]
		sum += d
		sum2 += d * d
	}
	n := float64(len(f.Keys))
	mean := sum / n
	sd := math.Sqrt((sum2 - n*mean*mean) / (n - 1))
	if math.Abs(mean) > 5*sigma/math.Sqrt(n) || sd < 0.6*sigma || sd > 1.5*sigma {
		t.Fatalf("noise mean %.4g sd %.4g, σ = %.4g (n = %d)", mean, sd, sigma, len(f.Keys))
	}
}

// connectedSBM samples SBMs until one is connected (Δ2 needs a connected
// graph).
// readingsCSV writes the fixture's readings as a CSV node,value file
// (--values) in a fresh directory and returns its path.
func (f *fixture) readingsCSV(t testing.TB) string {
	t.Helper()
	var csv strings.Builder
	csv.WriteString("node,value\n")
	for i, k := range f.Keys {
		fmt.Fprintf(&csv, "%d,%v\n", k, f.Obs[i])
	}
	path := filepath.Join(t.TempDir(), "readings.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func connectedSBM(t testing.TB, sizes []int, pIn, pOut float64) *fixture {
	for seed := uint64(1); seed < 50; seed++ {
		f := sbmFixture(t, sizes, pIn, pOut, seed)
		if connectedFixture(f) {
			return f
		}
	}
	t.Fatal("no connected SBM sample")
	return nil
}

func connectedFixture(f *fixture) bool {
	parent := make([]int, len(f.Keys))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	comps := len(f.Keys)
	for _, r := range f.Rels {
		a, b := find(r.U), find(r.V)
		if a != b {
			parent[a] = b
			comps--
		}
	}
	return comps == 1
}

// TestEndToEnd runs the built binary against the server: release → locate,
// with every property, count and run record checked, re-runs, and the
// failure cases with their exit codes.
func TestEndToEnd(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{25, 25, 25}, 0.3, 0.02)
	f.load(t, d)
	n := len(f.Keys)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE (r.parameters CONTAINS $p OR r.scope = $p OR r.writeProperty = $p) DELETE r", map[string]any{"p": e.scope})
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
	})

	// release
	r := runCLI(t, s.Password, e.releaseArgs("epoch-1", "--batch-size", "7")...)
	if r.Code != 0 {
		t.Fatalf("release: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var rel struct {
		RunID                 string  `json:"runId"`
		NodeCount             int     `json:"nodeCount"`
		NodePropertiesWritten int     `json:"nodePropertiesWritten"`
		Sigma, Delta2, Rho    float64 `json:"-"`
	}
	var relMap map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &relMap); err != nil {
		t.Fatalf("release -o json: %v\n%s", err, r.Stdout)
	}
	json.Unmarshal([]byte(r.Stdout), &rel)
	rel.Sigma, _ = relMap["sigma"].(float64)
	rel.Delta2, _ = relMap["delta2"].(float64)
	rel.Rho, _ = relMap["rho"].(float64)
	if rel.RunID == "" || rel.NodeCount != n || rel.NodePropertiesWritten != n || !(rel.Sigma > 0) || !(rel.Delta2 > 0) {
		t.Fatalf("release summary %s", r.Stdout)
	}
	// ρ = Δ2²/(2σ²) (zCDP of the Gaussian), never rounded down.
	if want := rel.Delta2 * rel.Delta2 / (2 * rel.Sigma * rel.Sigma); rel.Rho < want*(1-1e-9) || rel.Rho > want*1.01 {
		t.Errorf("ρ = %v, Δ2²/(2σ²) = %v", rel.Rho, want)
	}
	released := nodeValues(t, d, f.Label, e.write)
	checkNoise(t, f, released, rel.Sigma)
	rr := runRecord(t, d, rel.RunID)
	if rr["status"] != "succeeded" || rr["command"] != "release" || rr["nodePropertiesWritten"] != int64(n) ||
		rr["sigma"] != rel.Sigma || rr["delta2"] != rel.Delta2 || rr["rho"] != rel.Rho || rr["finishedAt"] == nil {
		t.Fatalf("release run record %v", rr)
	}
	for _, k := range []string{"computeMillis", "writeMillis", "startedAt", "parameters", "nodeLabels"} {
		if rr[k] == nil {
			t.Errorf("release run record lacks %s", k)
		}
	}
	ledger := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases, l.rhoSpent", map[string]any{"s": e.scope})
	if len(ledger) != 1 || ledger[0].Values[0] != int64(1) || ledger[0].Values[1].(float64) < rel.Rho {
		t.Fatalf("ledger after one release: %v", ledger)
	}

	// locate
	// --source-mass: the forecast is made at a stated mass (the estimate's
	// 95% lower bound can reach 0 on a noisy draw, and then none is shown).
	r = runCLI(t, s.Password, e.locateArgs(rel.RunID, "--batch-size", "11", "--source-mass", "1")...)
	if r.Code != 0 {
		t.Fatalf("locate: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var loc map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &loc); err != nil {
		t.Fatalf("locate -o json: %v\n%s", err, r.Stdout)
	}
	// The release's ε and δ come from its run record (the forecast and the
	// picture's caption say under which guarantee the values were released).
	if fc, _ := loc["forecast"].(map[string]any); fc == nil || fc["epsilon"] != e.eps || fc["delta"] != 1e-5 {
		t.Errorf("locate --release-run forecast = %v, want ε = %v, δ = 1e-05 from the release", loc["forecast"], e.eps)
	}
	if loc["nodePropertiesWritten"] != float64(4*n) {
		t.Errorf("locate nodePropertiesWritten = %v, want %d", loc["nodePropertiesWritten"], 4*n)
	}
	first := map[string]map[int64]any{}
	for _, p := range []string{e.mass, e.comm, e.prob, e.rank} {
		first[p] = nodeValues(t, d, f.Label, p)
		if len(first[p]) != n {
			t.Fatalf("%d nodes have %s, want %d", len(first[p]), p, n)
		}
	}
	probSum := map[int64]float64{}
	for i, k := range f.Keys {
		mass, _ := first[e.mass][k].(float64)
		prob, _ := first[e.prob][k].(float64)
		rank, _ := first[e.rank][k].(int64)
		comm, _ := first[e.comm][k].(int64)
		if mass < 0 || math.IsNaN(mass) || prob < 0 || prob > 1+1e-9 || rank < 1 || rank > 3 || comm != f.Community[i] {
			t.Fatalf("node %d: mass %v prob %v rank %v community %v (fixture community %d)",
				k, first[e.mass][k], first[e.prob][k], first[e.rank][k], first[e.comm][k], f.Community[i])
		}
		probSum[comm] = prob
	}
	var total float64
	for _, p := range probSum {
		total += p
	}
	if total > 1+1e-6 {
		t.Errorf("community probabilities sum to %v > 1", total)
	}
	locID, _ := loc["runId"].(string)
	lr := runRecord(t, d, locID)
	if lr["status"] != "succeeded" || lr["command"] != "locate" || lr["nodePropertiesWritten"] != int64(4*n) {
		t.Fatalf("locate run record %v", lr)
	}

	t.Run("locate re-run is idempotent", func(t *testing.T) {
		r := runCLI(t, s.Password, e.locateArgs(rel.RunID)...)
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		for _, p := range []string{e.mass, e.comm, e.prob, e.rank} {
			again := nodeValues(t, d, f.Label, p)
			for k, v := range first[p] {
				if again[k] != v {
					t.Fatalf("%s of node %d changed: %v → %v", p, k, v, again[k])
				}
			}
		}
	})
	t.Run("release re-run of the same epoch never re-draws", func(t *testing.T) {
		r := runCLI(t, s.Password, e.releaseArgs("epoch-1")...)
		if r.Code != 0 || !strings.Contains(r.Stdout, `"alreadyPublished": true`) {
			t.Fatalf("re-run of a published epoch: exit %d, want 0 (already published): %s %s", r.Code, r.Stdout, r.Stderr)
		}
		again := nodeValues(t, d, f.Label, e.write)
		for k, v := range released {
			if again[k] != v {
				t.Fatalf("released value of node %d changed: %v → %v", k, v, again[k])
			}
		}
		l := query(t, d, "MATCH (l:GraphcloakLedger {scope: $s}) RETURN l.releases", map[string]any{"s": e.scope})
		if l[0].Values[0] != int64(1) {
			t.Fatalf("ledger releases = %v after a refused re-run", l[0].Values[0])
		}
		t.Logf("exit %d: %s", r.Code, firstLine(r.Stderr))
	})

	// Failure cases: exit code, a clear message, nothing written.
	failures := []struct {
		name     string
		password string
		mutate   func(a []string) []string
		code     int
		mention  string
	}{
		{"wrong password", "wrong-" + s.Password, nil, 3, "auth"}, // configuration: fix the job (docs/scheduling.md), not a retry
		{"unreachable", s.Password, func(a []string) []string { return replaceFlag(a, "--uri", "bolt://127.0.0.1:1") }, 4, "unreachable"},
		{"unknown label", s.Password, func(a []string) []string { return replaceFlag(a, "--node-labels", "NoSuchLabel_"+e.scope) }, 3, "label"},
		{"missing property", s.Password, func(a []string) []string { return replaceFlag(a, "--value-property", "noSuchProp_"+e.scope) }, 3, "property"},
		{"injection in label", s.Password, func(a []string) []string {
			return replaceFlag(a, "--node-labels", f.Label+"`) DETACH DELETE n //")
		}, 3, "label"},
		{"unicode escape in label", s.Password, func(a []string) []string { return replaceFlag(a, "--node-labels", `A\u0060`) }, 3, "label"},
		{"bad uri scheme", s.Password, func(a []string) []string { return replaceFlag(a, "--uri", "http://127.0.0.1:7474") }, 3, "uri"},
	}
	for _, fc := range failures {
		t.Run(fc.name, func(t *testing.T) {
			nodes0, rels0 := f.count(t, d)
			epoch := "fail-" + strings.ReplaceAll(fc.name, " ", "-")
			wp := e.write + "_" + strings.ReplaceAll(fc.name, " ", "_")
			args := replaceFlag(e.releaseArgs(epoch), "--write-property", wp)
			if fc.mutate != nil {
				args = fc.mutate(args)
			}
			r := runCLI(t, fc.password, args...)
			if r.Code != fc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.Code, fc.code, r.Stdout, r.Stderr)
			}
			if !strings.Contains(strings.ToLower(r.Stderr), fc.mention) {
				t.Errorf("stderr does not mention %q: %s", fc.mention, r.Stderr)
			}
			if strings.Contains(r.Stderr+r.Stdout, s.Password) && s.Password != "" {
				t.Fatalf("output contains the password")
			}
			if propertyKeys(t, d)[wp] {
				t.Fatalf("property %s was written", wp)
			}
			for _, run := range runsWriting(t, d, wp) {
				if run["status"] == "succeeded" {
					t.Fatalf("a failed run is recorded as succeeded: %v", run)
				}
			}
			if nodes1, rels1 := f.count(t, d); nodes1 != nodes0 || rels1 != rels0 {
				t.Fatalf("node/relationship counts changed: %d/%d → %d/%d", nodes0, rels0, nodes1, rels1)
			}
		})
	}
}

// replaceFlag sets flag's value in args (appending it when absent).
func replaceFlag(args []string, flag, value string) []string {
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == flag {
			out[i+1] = value
			return out
		}
	}
	return append(out, flag, value)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestEndToEndValuesFile releases raw readings given as a CSV file (the
// local-privacy mode): only the private values reach the database — no
// other property key appears — and they carry noise of the reported σ.
func TestEndToEndValuesFile(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{30, 30}, 0.3, 0.03)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE (r.parameters CONTAINS $p OR r.scope = $p OR r.writeProperty = $p) DELETE r", map[string]any{"p": e.scope})
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
	})
	file := f.readingsCSV(t)
	args := e.releaseArgs("epoch-csv")
	for i := 0; i < len(args); i++ { // --values instead of --value-property
		if args[i] == "--value-property" {
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	r := runCLI(t, s.Password, append(args, "--values", file)...)
	if r.Code != 0 {
		t.Fatalf("release --values: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var rel map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &rel); err != nil {
		t.Fatal(err)
	}
	sigma, _ := rel["sigma"].(float64)
	checkNoise(t, f, nodeValues(t, d, f.Label, e.write), sigma)
	// The fixture's nodes carry exactly their own properties plus the
	// private value and the id of the run that wrote it.
	got := map[string]bool{}
	for _, rec := range query(t, d, "MATCH (n:`"+f.Label+"`) UNWIND keys(n) AS k RETURN DISTINCT k", nil) {
		got[rec.Values[0].(string)] = true
	}
	want := map[string]bool{"key": true, "community": true, "obs": true, e.write: true, e.write + "_runId": true}
	if len(got) != len(want) {
		t.Fatalf("node property keys %v, want %v", sortedKeys(got), sortedKeys(want))
	}
	for k := range want {
		if !got[k] {
			t.Fatalf("node property keys %v, want %v", sortedKeys(got), sortedKeys(want))
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/schedule"
)

// isolateConfig keeps the user's config file and GRAPHCLOAK_* environment
// out of a test.
func isolateConfig(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "GRAPHCLOAK_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

// runPipelineCLI runs the CLI in-process with stdin and returns stdout,
// stderr and the exit code.
func runPipelineCLI(t *testing.T, ctx context.Context, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetArgs(args)
	if stdin != nil {
		root.SetIn(stdin)
	}
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(&errb, "graphcloak:", flagText(err)) // naming flags, as errorMessage does
	}
	return out.String(), errb.String(), exitCode(err)
}

// karateReadings writes a readings CSV for the 34 karate nodes: node k
// reads 0.1234567 + k·1e-3 (distinctive strings to search for).
func karateReadings(t *testing.T, dir string, header bool) (string, []string) {
	t.Helper()
	var b strings.Builder
	if header {
		b.WriteString("node,value\n")
	}
	var raw []string
	for k := 1; k <= 34; k++ {
		v := fmt.Sprintf("%.7f", 0.1234567+float64(k)*1e-3)
		raw = append(raw, v)
		fmt.Fprintf(&b, "%d,%s\n", k, v)
	}
	p := filepath.Join(dir, "readings.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p, raw
}

func TestReleaseFileGraph(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, raw := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	out := filepath.Join(dir, "release.json")
	initTestLedger(t, ledger, "--scope", "club")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", out, "--ledger", ledger, "--scope", "club", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	for _, k := range []string{"graph", "nodeCount", "relationshipCount", "delta2", "sigma", "rho", "epsilon", "delta",
		"mechanism", "scope", "epoch", "ledger", "out", "computeMillis", "writeMillis", "nodePropertiesWritten", "dryRun"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if sum["nodeCount"] != 34.0 || sum["relationshipCount"] != 78.0 || !(sum["sigma"].(float64) > 0) {
		t.Errorf("summary %v", sum)
	}
	rel, err := privacy.ReadReleaseFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Meta.N != 34 || rel.Meta.Sigma != sum["sigma"].(float64) || rel.Meta.Scope != "club" {
		t.Errorf("release file meta %+v", rel.Meta)
	}
	data, _ := os.ReadFile(out)
	for _, v := range raw {
		if strings.Contains(string(data), v) || strings.Contains(stdout+stderr, v) {
			t.Fatalf("raw reading %s appears in the release file or output", v)
		}
	}
	// The ledger was charged exactly once, with the release's ρ.
	l, err := privacy.OpenFileLedger(ledger, privacy.FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bal, err := l.Balance(context.Background(), "club")
	if err != nil || len(bal) != 1 || bal[0].Releases != 1 || bal[0].RhoSpent < rel.Meta.Rho {
		t.Errorf("balance %+v %v, want one charge of ρ=%v", bal, err, rel.Meta.Rho)
	}

	// The same epoch again is never drawn again: to the same --out it is a
	// no-op success (already published, file unchanged, no charge); to
	// another file the charged epoch cannot be re-published: exit 7.
	epoch := sum["epoch"].(string)
	before, _ := os.ReadFile(out)
	stdout, _, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", out, "--ledger", ledger, "--scope", "club", "--epoch", epoch, "-o", "json")
	if after, _ := os.ReadFile(out); code != 0 || !strings.Contains(stdout, `"alreadyPublished": true`) || string(after) != string(before) {
		t.Errorf("re-run of published epoch %s: exit %d, file unchanged %v: %s", epoch, code, string(after) == string(before), stdout)
	}
	_, _, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", filepath.Join(dir, "again.json"), "--ledger", ledger, "--scope", "club", "--epoch", epoch)
	if code != exitChargedEpoch {
		t.Errorf("re-release of epoch %s to another file: exit %d, want %d", epoch, code, exitChargedEpoch)
	}
	if bal, _ := l.Balance(context.Background(), "club"); bal[0].Releases != 1 {
		t.Errorf("re-runs charged the ledger: %+v", bal)
	}
	// A release past the budget: exit 5, and nothing written.
	past := filepath.Join(dir, "past.json")
	_, stderr, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", past, "--ledger", ledger, "--scope", "club", "--epsilon", "30")
	if code != exitBudgetExhausted {
		t.Errorf("release past the budget: exit %d (%s), want %d", code, stderr, exitBudgetExhausted)
	}
	if _, err := os.Stat(past); err == nil {
		t.Error("refused release wrote a file")
	}
}

func TestReleaseStdinTable(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	data, _ := os.ReadFile(readings)
	out := filepath.Join(dir, "release.json")
	initTestLedger(t, filepath.Join(dir, "l.json"), "--epsilon-total", "4", "--delta-total", "1e-6")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), bytes.NewReader(data), "release", "--graph", "karate",
		"--values", "-", "--out", out, "--ledger", filepath.Join(dir, "l.json"),
		"--epsilon", "1", "--delta", "1e-7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"σ", "Δ2", "csv:-", "release file"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := privacy.ReadReleaseFile(out); err != nil {
		t.Error(err)
	}
}

func TestReleaseExitCodes(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("node,value\n1,0.5\n2,oops\n"), 0o600)
	short := filepath.Join(dir, "short.csv")
	os.WriteFile(short, []byte("1,0.5\n2,0.25\n"), 0o600)
	out := filepath.Join(dir, "r.json")
	ledger := filepath.Join(dir, "l.json")
	base := []string{"release", "--graph", "karate", "--out", out, "--ledger", ledger, "--epsilon-total", "10", "--delta-total", "1e-5"}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no values", base, exitUsage},
		{"both value modes", append(base, "--values", readings, "--value-property", "temp"), exitUsage},
		{"value property off neo4j", []string{"release", "--graph", "karate", "--value-property", "temp", "--out", out}, exitUsage},
		{"no out", []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger}, exitUsage},
		{"no graph", []string{"release", "--values", readings, "--out", out}, exitUsage},
		{"unknown flag", append(base, "--values", readings, "--frobnicate"), exitUsage},
		{"epsilon", append(base, "--values", readings, "--epsilon", "-1"), exitBadInput},
		{"delta", append(base, "--values", readings, "--delta", "1"), exitBadInput},
		{"mechanism", append(base, "--values", readings, "--mechanism", "analytic"), exitBadInput},
		{"bad csv", append(base, "--values", bad), exitBadInput},
		{"missing nodes", append(base, "--values", short), exitBadInput},
		{"missing file", append(base, "--values", filepath.Join(dir, "nope.csv")), exitBadInput},
		{"bad spec", []string{"release", "--graph", "sbm:sizes=0", "--values", readings, "--out", out}, exitBadInput},
		{"no ledger and no budget", []string{"release", "--graph", "karate", "--values", readings, "--out", out, "--ledger", filepath.Join(dir, "none.json")}, exitBadInput},
		{"bad label before connecting", []string{"release", "--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--values", readings, "--node-labels", "Room`) DELETE n//"}, exitBadInput},
		{"bad uri scheme", []string{"release", "--graph", "neo4j", "--uri", "http://127.0.0.1:1", "--values", readings}, exitBadInput},
		{"unreachable", []string{"release", "--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--values", readings}, exitDBUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runPipelineCLI(t, context.Background(), nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused release wrote the release file")
	}
}

func TestInterruptedExitCode(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	initTestLedger(t, filepath.Join(dir, "l.json"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, code := runPipelineCLI(t, ctx, nil, "release", "--graph", "karate", "--values", readings,
		"--out", filepath.Join(dir, "r.json"), "--ledger", filepath.Join(dir, "l.json"))
	if code != exitInterrupted {
		t.Errorf("cancelled release: exit %d, want %d", code, exitInterrupted)
	}
}

func TestPasswordFlagWarning(t *testing.T) {
	isolateConfig(t)
	const pw = "Sup3r-s3cret-pw"
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "config", "show", "--password", pw, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "WARNING: --password is visible") {
		t.Errorf("no warning on stderr: %q", stderr)
	}
	// Unreachable server with the password: neither output nor error shows it.
	readings, _ := karateReadings(t, t.TempDir(), true)
	stdout2, stderr2, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "neo4j",
		"--uri", "bolt://127.0.0.1:1", "--password", pw, "--values", readings, "--log-format", "json")
	if code != exitDBUnreachable {
		t.Errorf("exit %d: %s", code, stderr2)
	}
	for _, s := range []string{stdout, stderr, stdout2, stderr2} {
		if strings.Contains(s, pw) {
			t.Fatalf("password leaked: %s", s)
		}
	}
}

// --epoch auto names the UTC start of the schedule slot: every time inside
// one slot gives the same epoch, the next slot another.
func TestSlotEpoch(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		t    string
		slot time.Duration
		want string
	}{
		{"2026-11-22T10:00:00Z", time.Hour, "2026-11-22T10:00Z"},
		{"2026-11-22T10:59:59Z", time.Hour, "2026-11-22T10:00Z"},
		{"2026-11-22T11:00:00Z", time.Hour, "2026-11-22T11:00Z"},
		{"2026-11-22T12:30:00+02:00", time.Hour, "2026-11-22T10:00Z"}, // UTC, whatever the zone
		{"2026-11-22T10:14:00Z", 15 * time.Minute, "2026-11-22T10:00Z"},
		{"2026-11-22T23:59:00Z", 24 * time.Hour, "2026-11-22"},
		{"2026-11-22T10:00:07Z", 5 * time.Second, "2026-11-22T10:00:05Z"},
	}
	for _, c := range cases {
		if got := schedule.EpochName(at(c.t), c.slot); got != c.want {
			t.Errorf("EpochName(%s, %v) = %s, want %s", c.t, c.slot, got, c.want)
		}
	}
}

// Two runs of the same scheduled command in one slot (--epoch auto) are one
// release: the second republishes the first's values, charging nothing.
func TestEpochAutoRetryChargesOnce(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings := filepath.Join(dir, "r.csv")
	var b strings.Builder
	for k := 1; k <= 34; k++ {
		b.WriteString(itoa(k) + "," + ftoa(float64(k%5)) + "\n")
	}
	os.WriteFile(readings, []byte(b.String()), 0o600)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger, "--epsilon-total", "10", "--delta-total", "1e-5")
	out := filepath.Join(dir, "release.json")
	// A slot of 366 days: both runs fall in one slot but for a run that
	// straddles a slot boundary once a year.
	args := []string{"release", "--graph", "karate", "--values", readings, "--tau", "1", "--ledger", ledger,
		"--epoch", "auto", "--slot", "8784h", "--out", out, "-o", "json"}
	var epochs []string
	var files []string
	for i := 0; i < 2; i++ {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
		var sum struct{ Epoch string }
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		epochs = append(epochs, sum.Epoch)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, string(data))
	}
	if epochs[0] != epochs[1] || !strings.HasPrefix(epochs[0], "20") {
		t.Errorf("epochs %q", epochs)
	}
	if files[0] != files[1] {
		t.Error("the retry changed the published values")
	}
	stdout, _, code := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"releases": 1`) {
		t.Errorf("ledger after two runs in one slot (want one release): %s", stdout)
	}
	if _, _, code := runPipelineCLI(t, context.Background(), nil, append(args[:len(args)-4], "--slot", "10s")...); code != exitBadInput {
		t.Errorf("--slot 10s: exit %d, want %d", code, exitBadInput)
	}
}

// karateSourceReadings writes the readings of a source of mass 2 at node
// key src after diffusion time τ (exp(−τL)·2e_src, full precision): inside
// the private answer's model.
func karateSourceReadings(t *testing.T, path string, src int, tau float64) string {
	t.Helper()
	g, _ := laplacian.Karate()
	act, err := expm.NewAction(g, tau, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f0, y := make([]float64, g.N()), make([]float64, g.N())
	i, _ := g.IndexOf(strconv.Itoa(src))
	f0[i] = 2
	act.Apply(y, f0, 1)
	var b strings.Builder
	b.WriteString("node,value\n")
	for j, v := range y {
		fmt.Fprintf(&b, "%s,%s\n", g.Key(j), strconv.FormatFloat(v, 'g', -1, 64))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

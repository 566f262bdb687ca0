package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/schedule"
)

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

// Through the CLI: two keyed releases of different
// readings with the same --key --scope --epoch, charged on two ledgers.
// Before release ids their difference was exactly the difference of the
// readings (to one grid step); now it carries the noise of two
// independent draws.
func TestKeyedReleasesOnTwoLedgersCLI(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "k.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(key, k); err != nil {
		t.Fatal(err)
	}
	a := writeReadings(t, filepath.Join(dir, "a.csv"), func(k int) float64 { return 0.01 * float64(k) })
	b := writeReadings(t, filepath.Join(dir, "b.csv"), func(k int) float64 { return 0.5 - 0.013*float64(k) })
	var rels [2]*privacy.Released
	for i, name := range []string{"a", "b"} {
		ledger := filepath.Join(dir, "L"+name+".json")
		initTestLedger(t, ledger)
		out := filepath.Join(dir, "r"+name+".json")
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values",
			filepath.Join(dir, name+".csv"), "--tau", "1", "--key", key, "--ledger", ledger, "--epoch", "E7", "--out", out)
		if code != 0 {
			t.Fatalf("release %s: exit %d: %s", name, code, stderr)
		}
		rel, err := privacy.ReadReleaseFile(out)
		if err != nil {
			t.Fatal(err)
		}
		rels[i] = rel
	}
	if rels[0].Meta.ReleaseID == "" || rels[0].Meta.ReleaseID == rels[1].Meta.ReleaseID {
		t.Fatalf("release ids %q and %q: want two distinct fresh ids", rels[0].Meta.ReleaseID, rels[1].Meta.ReleaseID)
	}
	gamma := math.Ldexp(1, -rels[0].Meta.GridExponent)
	far := 0
	for i, key := range rels[0].Keys {
		d := (rels[0].Values[i] - rels[1].Values[i]) - (a[key] - b[key])
		if math.Abs(d) > 2*gamma {
			far++
		}
	}
	// σ/γ ≥ 1024: a shared noise gives |d| ≤ γ everywhere; independent
	// noise gives |d| ≤ 2γ with probability < 1e-3 per node.
	if far < 30 {
		t.Errorf("only %d of 34 nodes: r1 − r2 is still the difference of the readings (noise shared)", far)
	}
}

// A release never creates, raises or resets a
// budget. A missing ledger (deleted file) or a new scope is refused with
// the budget --init command to run, even when the release is given
// --epsilon-total/--delta-total, and nothing is created or charged; with
// a ledger key, a ledger rewritten without its charges is refused.
func TestReleaseNeverCreatesBudgets(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	release := func(extra ...string) (string, int) {
		args := append([]string{"release", "--graph", "karate", "--values", readings, "--out", filepath.Join(dir, "r.json"),
			"--ledger", ledger}, extra...)
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		return stderr, code
	}
	stderr, code := release("--epsilon-total", "100", "--delta-total", "1e-5")
	if code != exitBadInput || !strings.Contains(stderr, "graphcloak budget --init --ledger "+ledger+" --scope default") {
		t.Errorf("missing ledger: exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(ledger); !os.IsNotExist(err) {
		t.Fatalf("a release created the ledger (%v)", err)
	}
	initTestLedger(t, ledger, "--scope", "default")
	before, _ := os.ReadFile(ledger)
	stderr, code = release("--scope", "fresh-scope", "--epsilon-total", "100", "--delta-total", "1e-5")
	if code != exitBadInput || !strings.Contains(stderr, "--scope fresh-scope") {
		t.Errorf("new scope: exit %d, stderr %s", code, stderr)
	}
	if after, _ := os.ReadFile(ledger); string(after) != string(before) {
		t.Error("a refused release changed the ledger")
	}

	// A keyed ledger: charges removed and the chain recomputed without
	// the key (what a rewritten SHA-256 checksum did before) is refused.
	keyFile := filepath.Join(dir, "ledger.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(keyFile, k); err != nil {
		t.Fatal(err)
	}
	keyed := filepath.Join(dir, "keyed.json")
	initTestLedger(t, keyed, "--ledger-key", keyFile)
	args := []string{"release", "--graph", "karate", "--values", readings, "--out", filepath.Join(dir, "k.json"),
		"--ledger", keyed, "--ledger-key", keyFile, "--epoch", "E7"}
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 0 {
		t.Fatalf("keyed release: exit %d: %s", code, stderr)
	}
	charged, _ := os.ReadFile(keyed)
	var f map[string]any
	if err := json.Unmarshal(charged, &f); err != nil {
		t.Fatal(err)
	}
	entries := f["entries"].([]any)
	f["entries"] = entries[:len(entries)-1] // drop the charge
	forged, _ := json.MarshalIndent(f, "", "  ")
	os.WriteFile(keyed, forged, 0o600)
	_, stderr, code = runPipelineCLI(t, context.Background(), nil, args...)
	if code == 0 || !strings.Contains(stderr, "corrupt") {
		t.Errorf("release on a ledger with its charge removed: exit %d, %s", code, stderr)
	}
}

// Every refused input is refused before the ledger
// is touched — the ledger file stays byte for byte the same — and before
// any output is written.
func TestRefusedInputsLeaveLedgerUnchanged(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	adir := filepath.Join(dir, "adir")
	os.Mkdir(adir, 0o700)
	long65 := strings.Repeat("p", 65)
	base := func(extra ...string) []string {
		return append([]string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger,
			"--out", filepath.Join(dir, "r.json")}, extra...)
	}
	neo := func(extra ...string) []string { // never reached: refused before connecting
		return append([]string{"release", "--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--values", readings,
			"--ledger", ledger}, extra...)
	}
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"out in a missing directory", base("--out", "/nonexistent/dir/r.json"), exitBadInput},
		{"out is a directory", base("--out", adir), exitBadInput},
		{"scope of 100000 characters", base("--scope", strings.Repeat("s", 100000)), exitBadInput},
		{"scope with a control character", base("--scope", "bad\x07scope"), exitBadInput},
		{"scope not NFC", base("--scope", "Geba\u0308ude"), exitBadInput},
		{"epoch with a newline", base("--epoch", "e\n1"), exitBadInput},
		{"epoch of 300 characters", base("--epoch", strings.Repeat("e", 300)), exitBadInput},
		{"epoch with a zero-width space", base("--epoch", "e\u200b1"), exitBadInput},
		{"tau out of range", base("--tau", "1e15"), exitBadInput},
		{"tau 1e300", base("--tau", "1e300"), exitBadInput},
		{"alpha out of range", base("--alpha", "1e300"), exitBadInput},
		{"unknown mechanism", base("--mechanism", "laplace"), exitBadInput},
		{"missing readings file", base("--values", filepath.Join(dir, "none.csv")), exitBadInput},
		{"missing key file", base("--key", filepath.Join(dir, "none.key")), exitBadInput},
		{"value property off Neo4j", base("--values", "", "--value-property", "obs"), exitUsage},
		{"write property of 65 bytes", neo("--write-property", long65), exitBadInput},
		{"write property too long for its run id", neo("--write-property", strings.Repeat("w", 60)), exitBadInput},
		{"write property with a backtick", neo("--write-property", "a`b"), exitBadInput},
		{"label of 65 bytes", neo("--node-labels", long65), exitBadInput},
	}
	before, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runPipelineCLI(t, context.Background(), nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, stderr)
			}
			if after, _ := os.ReadFile(ledger); string(after) != string(before) {
				t.Fatal("the ledger changed")
			}
			if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
				t.Fatal("a release file was written")
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".r.json.tmp-*")); len(m) > 0 {
				t.Fatalf("temporary files left: %v", m)
			}
		})
	}
}

// When σ is below 1e-6 of the readings' spread the
// release warns on stderr (never in the published output).
func TestNegligibleNoiseWarning(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	huge := filepath.Join(dir, "huge.csv")
	writeReadings(t, huge, func(k int) float64 { return 1e7 * float64(k) })
	small := filepath.Join(dir, "small.csv")
	writeReadings(t, small, func(k int) float64 { return 0.01 * float64(k) })
	for _, c := range []struct {
		values string
		warn   bool
	}{{huge, true}, {small, false}} {
		out := filepath.Join(dir, "r.json")
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", c.values,
			"--ledger", ledger, "--out", out, "--epsilon", "0.1")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		os.Remove(out)
		if got := strings.Contains(stderr, "protects almost nothing"); got != c.warn {
			t.Errorf("%s: warning %v, want %v: %s", c.values, got, c.warn, stderr)
		}
		if strings.Contains(stdout, "protects almost nothing") {
			t.Error("the warning is in the published output")
		}
	}
}

// A release whose Δ2 is only a certified upper bound (here: a time budget
// too short to refine a sparse graph) says so on stderr, with the proven
// bracket; one with the exact Δ2 does not.
func TestInexactSensitivityWarning(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	const n = 6000
	var csv strings.Builder
	for k := range n {
		fmt.Fprintf(&csv, "%d,%g\n", k, float64(k%7)/7)
	}
	readings := filepath.Join(dir, "pa.csv")
	if err := os.WriteFile(readings, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		budget string
		exact  bool
	}{{"1ms", false}, {"0", true}} {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", fmt.Sprintf("pa:n=%d,m=2", n),
			"--values", readings, "--ledger", ledger, "--out", filepath.Join(dir, "r"+c.budget+".json"), "--tau", "0.1", "--time-budget", c.budget, "-o", "json")
		if code != 0 {
			t.Fatalf("--time-budget %s: exit %d: %s", c.budget, code, stderr)
		}
		var sum struct{ Delta2Exact bool }
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Delta2Exact != c.exact {
			t.Fatalf("--time-budget %s: delta2Exact %v (%v), want %v", c.budget, sum.Delta2Exact, err, c.exact)
		}
		if warned := strings.Contains(stderr, "certified upper bound, not the exact value"); warned == c.exact {
			t.Errorf("--time-budget %s (exact %v): warned %v: %s", c.budget, c.exact, warned, stderr)
		}
	}

	// The dry run computes Δ2 under the release's own budget, so it shows
	// the σ the release uses. A 1 ns budget stops right after the
	// deterministic bound phase, so both reach the same bound. Without the
	// store: it holds the exact Δ2 the release above kept, which a release
	// with a time budget takes.
	sigma := func(args ...string) (float64, bool) {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append([]string{"release", "--graph", fmt.Sprintf("pa:n=%d,m=2", n),
			"--values", readings, "--ledger", ledger, "--tau", "0.1", "--time-budget", "1ns", "--cache-dir", "none", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var sum struct {
			Sigma       float64
			Delta2Exact bool
		}
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		return sum.Sigma, sum.Delta2Exact
	}
	// The forecast (100 simulated releases of 6 000 nodes) is not what is
	// tested here.
	dry, dryExact := sigma("--dry-run", "--forecast-trials", "0")
	real, realExact := sigma("--out", filepath.Join(dir, "r2.json"))
	if dry != real || dryExact || realExact {
		t.Errorf("--time-budget 1ns: dry run σ %.17g (exact %v), release σ %.17g (exact %v)", dry, dryExact, real, realExact)
	}
}

// release --help says what a reading must be, what
// α means in reading units, and to take the smallest plausible τ.
func TestReleaseHelpSaysWhatIsProtected(t *testing.T) {
	isolateConfig(t)
	stdout, _, code := runPipelineCLI(t, context.Background(), nil, "release", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"exp(−τL)·f0", "reading mass of one protected unit", "smallest plausible τ", "budget --init"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("release --help does not say %q", want)
		}
	}
}

// A release file is never overwritten and a re-run is
// never charged twice. The same file release run again (same --out, same
// --epoch) reports "already published" (exit 0) with the ledger and the
// file byte for byte unchanged; without --epoch each run is a new epoch,
// so a second run to the same --out is refused (exit 3) before the
// ledger is charged.
func TestFileReleaseRunTwice(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	for _, epoch := range []string{"E1", ""} {
		out := filepath.Join(dir, "release"+epoch+".json")
		args := []string{"release", "--graph", "karate", "--values", readings, "--out", out, "--ledger", ledger, "-o", "json"}
		if epoch != "" {
			args = append(args, "--epoch", epoch)
		}
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 0 {
			t.Fatalf("epoch %q: first release: exit %d: %s", epoch, code, stderr)
		}
		ledgerBefore, _ := os.ReadFile(ledger)
		fileBefore, _ := os.ReadFile(out)
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		var sum struct{ AlreadyPublished bool }
		json.Unmarshal([]byte(stdout), &sum)
		switch {
		case epoch != "" && (code != 0 || !sum.AlreadyPublished):
			t.Errorf("same epoch again: exit %d, alreadyPublished %v; want 0 and true: %s", code, sum.AlreadyPublished, stderr)
		case epoch == "" && (code != exitBadInput || !strings.Contains(stderr, "never overwritten")):
			t.Errorf("no --epoch, same --out again: exit %d; want %d, refused as an overwrite: %s", code, exitBadInput, stderr)
		}
		if after, _ := os.ReadFile(ledger); string(after) != string(ledgerBefore) {
			t.Errorf("epoch %q: the second run changed the ledger (charged twice)", epoch)
		}
		if after, _ := os.ReadFile(out); string(after) != string(fileBefore) {
			t.Errorf("epoch %q: the second run rewrote %s", epoch, out)
		}
	}
}

// Affordability before Δ2: a release the budget
// cannot pay is refused before the graph is read and Δ2 computed (the
// log says neither happened); a re-run of a published epoch to its own
// file is said to be "already published" in the table.
func TestBudgetCheckedBeforeSensitivity(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	_, stderr, code := runCLI("release", "--graph", "karate", "--values", readings, "--ledger", ledger,
		"--out", filepath.Join(dir, "r.json"), "--epsilon", "100", "--delta", "1e-7", "--log-level", "info",
		"--sensitivity-cache", filepath.Join(dir, "d2.json"))
	if code != exitBudgetExhausted || !strings.Contains(stderr, "budget") {
		t.Fatalf("unaffordable release: exit %d, want %d: %s", code, exitBudgetExhausted, stderr)
	}
	if strings.Contains(stderr, "graph loaded") || strings.Contains(stderr, "computing Δ2") {
		t.Errorf("the unaffordable release read the graph or computed Δ2 before refusing:\n%s", stderr)
	}
	args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger,
		"--out", filepath.Join(dir, "r.json"), "--epoch", "monday", "--epsilon", "1", "--delta", "1e-7"}
	if _, stderr, code := runCLI(args...); code != 0 {
		t.Fatalf("release: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(args...)
	if code != 0 || !strings.Contains(out, "already published") {
		t.Errorf("re-run of epoch monday: exit %d, table does not say already published:\n%s%s", code, out, stderr)
	}
}

// TestOutputsNeverOverwriteInputs: an output property
// that is the node key (or whose run-id companion is), the readings, or a
// property locate reads is refused with exit 3 before any connection —
// the URI here points nowhere, so anything later would fail differently.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings := filepath.Join(dir, "r.csv")
	os.WriteFile(readings, []byte("node,value\n1,0.5\n"), 0o600)
	nowhere := []string{"--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--node-key-property", "roomId"}
	for _, args := range [][]string{
		append([]string{"release", "--write-property", "roomId", "--values", readings, "--ledger", "neo4j", "--epsilon", "1", "--tau", "1"}, nowhere...),
		{"release", "--write-property", "room", "--values", readings, "--ledger", "neo4j", "--epsilon", "1", "--tau", "1",
			"--graph", "neo4j", "--uri", "bolt://127.0.0.1:1", "--node-key-property", "room_runId"},
		append([]string{"locate", "--rank-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--mass-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--community-write-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--probability-property", "roomId", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--community-write-property", "relv", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"locate", "--mass-property", "x", "--probability-property", "x", "--sigma", "1", "--released-property", "relv"}, nowhere...),
		append([]string{"communities", "--community-write-property", "roomId"}, nowhere...),
	} {
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		if code != 3 || !strings.Contains(stderr, "would overwrite") {
			t.Errorf("%v: exit %d, want 3 naming the conflict: %s", args, code, stderr)
		}
	}
}

// TestReleaseSmoothAuto: --smooth auto forecasts every candidate τ′ with
// its own Δ2 — the same Δ2 sensitivity computes at τ+τ′, non-increasing
// in τ′ — picks the candidate with the best forecast, and the release
// then draws with that τ′ and its σ (the release file says so); a bad
// value is an input error.
func TestReleaseSmoothAuto(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	releaseKarate(t, dir) // readings, ledger
	ledger, readings, out := filepath.Join(dir, "l.json"), filepath.Join(dir, "readings.csv"), filepath.Join(dir, "smooth.json")
	args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--epsilon", "4", "--delta", "1e-6",
		"--tau", "0.5", "--smooth", "auto", "--forecast-trials", "40", "-o", "json"}
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "release", stdout)
	var sum struct {
		Smooth        float64
		Sigma         float64
		Delta2        float64
		SmoothChoices []job.SmoothChoice
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.SmoothChoices) != len(job.SmoothCandidates) {
		t.Fatalf("%d choices, want %d", len(sum.SmoothChoices), len(job.SmoothCandidates))
	}
	best := sum.SmoothChoices[0]
	for i, c := range sum.SmoothChoices {
		if want := job.SmoothCandidates[i] * 0.5; c.Smooth != want {
			t.Errorf("choice %d: τ′ %g, want %g", i, c.Smooth, want)
		}
		d2, _, code := runPipelineCLI(t, context.Background(), nil, "sensitivity", "--graph", "karate", "--tau", ftoa(0.5+c.Smooth), "-o", "json")
		var s struct{ Delta2 float64 }
		if code != 0 || json.Unmarshal([]byte(d2), &s) != nil || math.Abs(s.Delta2-c.Delta2) > 1e-9*s.Delta2 {
			t.Errorf("τ′ %g: Δ2 %v, sensitivity at τ+τ′ says %s", c.Smooth, c.Delta2, d2)
		}
		if i > 0 && c.Delta2 > sum.SmoothChoices[i-1].Delta2*(1+1e-9) {
			t.Errorf("Δ2 grows with τ′: %v", sum.SmoothChoices)
		}
		if c.CommunityAccuracy > best.CommunityAccuracy {
			best = c
		}
	}
	if sum.Smooth != best.Smooth || sum.Sigma != best.Sigma || sum.Delta2 != best.Delta2 {
		t.Errorf("released τ′ %g σ %g Δ2 %g, the best forecast was %+v", sum.Smooth, sum.Sigma, sum.Delta2, best)
	}
	var rel struct {
		Meta struct{ Smooth, Sigma float64 }
	}
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &rel) != nil || rel.Meta.Smooth != best.Smooth || rel.Meta.Sigma != best.Sigma {
		t.Errorf("release file: %s (err %v), want τ′ %g σ %g", data, err, best.Smooth, best.Sigma)
	}
	_, stderr, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--ledger", ledger, "--epsilon", "4", "--tau", "0.5", "--smooth", "sometimes", "--dry-run")
	if code != exitBadInput || !strings.Contains(stderr, "--smooth must be auto or a finite") {
		t.Errorf("--smooth sometimes: exit %d: %s", code, stderr)
	}
}

// A τ beyond what the graph carries is refused with a
// sentence naming the largest usable τ — by the release and its dry run
// alike — and that τ is usable. Before: karate at τ = 1000 and 1e6 died
// with "grid exponent = 691 / -9223372036854775808 must be in [-60, 60]",
// and their dry runs exited 0.
func TestTauTooLargeNamesLargestUsable(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	vals, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "ledger.json")
	if _, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", ledger, "--epsilon-total", "10", "--delta-total", "1e-5"); code != 0 {
		t.Fatalf("budget --init: exit %d: %v", code, err)
	}
	usable := regexp.MustCompile(`largest usable τ here is about ([0-9.e+-]+)`)
	release := func(tau string, dry bool) (int, error) {
		args := []string{"release", "--graph", "karate", "--values", vals, "--ledger", ledger, "--tau", tau,
			"--out", filepath.Join(t.TempDir(), "r.json"), "--forecast-trials", "0"}
		if dry {
			args = append(args, "--dry-run")
		}
		_, code, err := runPrivacyCLI(t, args...)
		return code, err
	}
	for _, tau := range []string{"1000", "1e6"} {
		code, err := release(tau, false)
		dcode, derr := release(tau, true)
		if code != exitBadInput || err == nil || strings.Contains(err.Error(), "grid exponent") || !strings.Contains(err.Error(), "tau = ") {
			t.Fatalf("release --tau %s: exit %d: %v; want exit 3 naming τ", tau, code, err)
		}
		if dcode != code || derr == nil || derr.Error() != err.Error() {
			t.Errorf("release --tau %s --dry-run: exit %d: %v; the release: exit %d: %v", tau, dcode, derr, code, err)
		}
		m := usable.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("no largest usable τ in %q", err)
		}
		if code, err := release(m[1], false); code != 0 {
			t.Errorf("the named τ = %s is refused: exit %d: %v", m[1], code, err)
		}
	}
}

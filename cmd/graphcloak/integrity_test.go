package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// writeReadings writes a karate readings CSV where node k reads f(k).
func writeReadings(t *testing.T, path string, f func(k int) float64) map[string]float64 {
	t.Helper()
	var b strings.Builder
	m := map[string]float64{}
	for k := 1; k <= 34; k++ {
		fmt.Fprintf(&b, "%d,%.9f\n", k, f(k))
		m[fmt.Sprint(k)] = f(k)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return m
}

// initTestLedger runs budget --init for a file ledger.
func initTestLedger(t *testing.T, ledger string, extra ...string) {
	t.Helper()
	args := append([]string{"budget", "--init", "--ledger", ledger, "--epsilon-total", "10", "--delta-total", "1e-5"}, extra...)
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 0 {
		t.Fatalf("budget --init: exit %d: %s", code, stderr)
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

// The dry run prints the σ the release uses, to
// the last digit (grid widening included); "exact" is claimed only for a
// relative slack ≤ 1e-6; τ out of range exits 3; -o json survives NaN/Inf.
func TestHonestNumbers(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	common := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--tau", "0.7",
		"--epsilon", "0.8", "--delta", "1e-6", "-o", "json"}
	sigmaOf := func(args ...string) float64 {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append(common, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatal(err)
		}
		return m["sigma"].(float64)
	}
	dry := sigmaOf("--dry-run")
	real := sigmaOf("--out", filepath.Join(dir, "r.json"))
	if dry != real {
		t.Errorf("dry run σ = %.17g, release σ = %.17g", dry, real)
	}

	sens := func(tau string) map[string]any {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "sensitivity", "--graph", "karate", "--tau", tau, "-o", "json")
		if code != 0 {
			t.Fatalf("sensitivity --tau %s: exit %d: %s", tau, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := sens("1"); m["exact"] != true || m["relativeSlack"].(float64) > 1e-6 {
		t.Errorf("τ = 1: exact %v, relativeSlack %v", m["exact"], m["relativeSlack"])
	}
	// At τ = 1e5 the bound's certified slack is as large as the value: an
	// upper bound, not an exact value.
	if m := sens("1e5"); m["exact"] != false || !(m["relativeSlack"].(float64) > 1e-6) {
		t.Errorf("τ = 1e5: exact %v, relativeSlack %v; want not exact", m["exact"], m["relativeSlack"])
	}
	for _, args := range [][]string{
		{"sensitivity", "--graph", "karate", "--tau", "1e15", "-o", "json"},
		{"sensitivity", "--graph", "karate", "--tau", "1e300", "-o", "json"},
		append(append([]string{}, common...), "--dry-run", "--tau", "1e15"),
		append(append([]string{}, common...), "--dry-run", "--alpha", "1e300"),
	} {
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != exitBadInput || !strings.Contains(stderr, "range") {
			t.Errorf("%v: exit %d, want 3 naming the range: %s", args, code, stderr)
		}
	}
	var b strings.Builder
	type inner struct {
		X float64 `json:"x"`
		Y float64 `json:"y,omitempty"`
	}
	v := struct {
		A float64  `json:"a"`
		B *inner   `json:"b"`
		C []inner  `json:"c"`
		D string   `json:"d"`
		E *float64 `json:"e,omitempty"`
	}{A: math.Inf(1), B: &inner{X: math.NaN()}, C: []inner{{X: 1, Y: math.Inf(-1)}}, D: "ok"}
	if err := printJSON(&b, v); err != nil {
		t.Fatalf("printJSON with NaN/Inf: %v", err)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back["a"] != nil || back["b"].(map[string]any)["x"] != nil || back["c"].([]any)[0].(map[string]any)["x"] != 1.0 || back["d"] != "ok" {
		t.Errorf("printJSON fallback: %s", b.String())
	}
	if _, ok := back["e"]; ok {
		t.Errorf("omitempty not kept: %s", b.String())
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
	// deterministic bound phase, so both reach the same bound.
	sigma := func(args ...string) (float64, bool) {
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append([]string{"release", "--graph", fmt.Sprintf("pa:n=%d,m=2", n),
			"--values", readings, "--ledger", ledger, "--tau", "0.1", "--time-budget", "1ns", "-o", "json"}, args...)...)
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

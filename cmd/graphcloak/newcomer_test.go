package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runCLI runs one command line in-process as main does (errors reported
// by reportError) and returns stdout, stderr and the exit code.
func runCLI(args ...string) (string, string, int) {
	var out, errb strings.Builder
	code := runArgs(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// Quiet by default, no log line before a JSON error: a successful command writes nothing on stderr unless asked
// (--log-level info), and the failures of exit codes 3, 5 and 7 under -o
// json write exactly one JSON document on stderr. Before, INFO lines
// repeated the table and preceded the JSON errors.
func TestQuietByDefault(t *testing.T) {
	isolateConfig(t)
	if _, stderr, code := runCLI("sensitivity", "--graph", "karate"); code != 0 || stderr != "" {
		t.Errorf("sensitivity: exit %d, stderr %q; want nothing on stderr by default", code, stderr)
	}
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	release := func(out, epoch string, extra ...string) []string {
		return append([]string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--out", out,
			"--epoch", epoch, "--epsilon", "1", "--delta", "1e-7", "-o", "json"}, extra...)
	}
	if _, stderr, code := runCLI(release(filepath.Join(dir, "a.json"), "e1")...); code != 0 || stderr != "" {
		t.Fatalf("release: exit %d, stderr %q; want nothing on stderr by default", code, stderr)
	}
	if _, stderr, _ := runCLI(release(filepath.Join(dir, "a0.json"), "e0", "--log-level", "info")...); !strings.Contains(stderr, "level=INFO") {
		t.Errorf("--log-level info wrote no INFO line: %q", stderr)
	}
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"bad input (locate on another graph)", []string{"locate", "--graph", "sbm:sizes=17x17,pin=0.5,pout=0.05,seed=3",
			"--release", filepath.Join(dir, "a.json"), "-o", "json"}, exitBadInput},
		{"budget (ε 100 against a total of 10)", release(filepath.Join(dir, "b.json"), "e2", "--epsilon", "100"), exitBudgetExhausted},
		{"charged (epoch e1 to another file)", release(filepath.Join(dir, "c.json"), "e1"), exitChargedEpoch},
	}
	for _, tc := range cases {
		_, stderr, code := runCLI(tc.args...)
		var doc map[string]any
		if code != tc.code || json.Unmarshal([]byte(stderr), &doc) != nil {
			t.Errorf("%s: exit %d (want %d), stderr is not one JSON document:\n%s", tc.name, code, tc.code, stderr)
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

// walk calls fn on cmd and every command below it.
func walk(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, c := range cmd.Commands() {
		walk(c, fn)
	}
}

// One convention for every flag kind: every
// duration flag takes plain seconds and a unit alike (--connect-timeout
// 15s was refused, --time-budget 30 wanted a unit); --random-seed has one
// type and one default everywhere (int 42 here, uint 1 there).
func TestFlagConventions(t *testing.T) {
	isolateConfig(t)
	root := newRootCmd(io.Discard, io.Discard)
	seedType, seedDefault := "", ""
	walk(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "duration" || strings.HasSuffix(f.Name, "timeout") || f.Name == "time-budget" {
				for _, v := range []string{"30", "30s", "0.5", "2m"} {
					if err := f.Value.Set(v); err != nil {
						t.Errorf("%s --%s %s: %v", c.CommandPath(), f.Name, v, err)
					}
				}
			}
			if f.Name == "random-seed" {
				if seedType == "" {
					seedType, seedDefault = f.Value.Type(), f.DefValue
				}
				if f.Value.Type() != seedType || f.DefValue != seedDefault {
					t.Errorf("%s --random-seed is %s default %s; elsewhere %s default %s", c.CommandPath(), f.Value.Type(), f.DefValue, seedType, seedDefault)
				}
			}
		})
	})
	neo4j := func(args ...string) (connect, transaction float64) {
		out, stderr, code := runCLI(append([]string{"config", "show", "-o", "json"}, args...)...)
		var doc struct {
			Config struct {
				Neo4j struct{ ConnectTimeout, TransactionTimeout float64 }
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
			t.Fatalf("config show %v: exit %d %v %s", args, code, err, stderr)
		}
		return doc.Config.Neo4j.ConnectTimeout, doc.Config.Neo4j.TransactionTimeout
	}
	for _, arg := range []string{"15s", "15", "0.25m"} {
		if c, _ := neo4j("--connect-timeout", arg); c != 15 {
			t.Errorf("--connect-timeout %s gave %v s, want 15", arg, c)
		}
	}
	t.Setenv("GRAPHCLOAK_NEO4J_TRANSACTIONTIMEOUT", "2m")
	if _, tx := neo4j(); tx != 120 {
		t.Errorf("GRAPHCLOAK_NEO4J_TRANSACTIONTIMEOUT=2m gave %v s, want 120", tx)
	}
	if _, stderr, code := runCLI("sensitivity", "--graph", "karate", "--time-budget", "30"); code != 0 {
		t.Errorf("--time-budget 30: exit %d: %s", code, stderr)
	}
	if _, _, code := runCLI("plan", "--graph", "karate", "--random-seed", "-1"); code == 0 {
		t.Error("--random-seed -1 accepted")
	}
}

// "-" is a standard stream where a flag takes rows
// and refused (exit 2, no file named "-") where it needs a file; one
// error format whatever the order of -o json and a bad flag; cobra's
// suggestions for misspelt commands and flags; misspelt GRAPHCLOAK_*
// variables warned about.
func TestDashSuggestionsAndVariables(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	t.Chdir(dir)
	out, stderr, code := runCLI("communities", "--graph", "karate", "--out", "-")
	if code != 0 || !strings.HasPrefix(out, "node,community\n") || strings.Count(out, "\n") != 35 {
		t.Errorf("communities --out -: exit %d, stdout not the CSV: %q %s", code, out, stderr)
	}
	for _, args := range [][]string{{"keygen", "--out", "-"}, {"sensitivity", "--graph", "karate", "--save", "-"},
		{"locate", "--graph", "karate", "--release", "-"}, {"demo", "--plot", "-"}} {
		if _, stderr, code := runCLI(args...); code != exitUsage || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`a file named "-" was written`)
	}
	_, a, ca := runCLI("release", "--frob", "-o", "json")
	_, b, cb := runCLI("release", "-o", "json", "--frob")
	if a != b || ca != cb || !strings.HasPrefix(a, "{") {
		t.Errorf("--frob -o json and -o json --frob differ:\n%s (%d)\n%s (%d)", a, ca, b, cb)
	}
	for args, want := range map[string]string{"relase": "did you mean release", "comunities --graph karate": "did you mean communities",
		"release --epsilom 1": "did you mean --epsilon", "projection shw": "did you mean show"} {
		if _, stderr, code := runCLI(strings.Fields(args)...); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q; want %q", args, code, stderr, want)
		}
	}
	t.Setenv("GRAPHCLOAK_NEO4J_PASWORD", "x")
	if _, stderr, _ := runCLI("version"); !strings.Contains(stderr, "GRAPHCLOAK_NEO4J_PASWORD") || !strings.Contains(stderr, "GRAPHCLOAK_NEO4J_PASSWORD") {
		t.Errorf("misspelt variable not warned about: %q", stderr)
	}
}

// Completion offered values that exit 3: each
// completed value of --mechanism and --communities is one the command
// accepts — run with it, none exits 2 or 3 for being of the wrong kind.
func TestCompletionsAreAccepted(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	complete := func(args ...string) []string {
		out, _, _ := runCLI(append([]string{"__complete"}, args...)...)
		var values []string
		for _, line := range strings.Split(out, "\n") {
			if line != "" && !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion") {
				values = append(values, strings.SplitN(line, "\t", 2)[0])
			}
		}
		return values
	}
	for _, v := range complete("communities", "--graph", "karate", "--communities", "") {
		if _, stderr, code := runCLI("communities", "--graph", "karate", "--communities", v); code != 0 {
			t.Errorf("communities --communities %s (completed): exit %d: %s", v, code, stderr)
		}
	}
	for i, v := range complete("release", "--mechanism", "") {
		args := []string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--mechanism", v,
			"--epsilon", "0.5", "--delta", "1e-7", "--out", filepath.Join(dir, "r"+v+".json"), "--epoch", "c" + string(rune('a'+i))}
		if _, stderr, code := runCLI(args...); code != 0 {
			t.Errorf("release --mechanism %s (completed): exit %d: %s", v, code, stderr)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// walkCommands calls fn for every command of the tree.
func walkCommands(root *cobra.Command, fn func(cmd *cobra.Command)) {
	fn(root)
	for _, s := range root.Commands() {
		walkCommands(s, fn)
	}
}

// paperSettings are the flags whose defaults demo and experiment take
// from the paper's setting (README "Configuration": τ = 2, ε = 4, δ = 0.1
// on the SBM; the line kernel's grid), not from a release's. Every other
// flag they share with a command has that command's default.
var paperSettings = map[string][]string{
	"graphcloak demo":                   {"graph", "tau", "epsilon", "delta", "plot"},
	"graphcloak experiment graph":       {"graph", "tau", "epsilon", "delta", "communities"},
	"graphcloak experiment line":        {"tau", "epsilon", "alpha", "sigma", "m", "n", "trials"},
	"graphcloak experiment sensitivity": {"tau", "line", "m"},
}

// flagDefault is a flag's default as help prints it, a list's without
// brackets ("1" for a one-element list, as for a number).
func flagDefault(f *pflag.Flag) string {
	return strings.TrimSuffix(strings.TrimPrefix(f.DefValue, "["), "]")
}

// One default per flag. Every flag name that two commands
// share has one default (as help prints it) on all of them, read from
// every command's flag set; demo and experiment differ only in the
// paper's settings listed above. Before: plan --delta 1e-06 against 1e-05,
// calibrate --mechanism analytic against discrete, plan --communities
// planted against leiden, --concurrency 0 against 4, --estimator ""
// against posterior, plan --tau/--smooth/--mode of other types and
// meanings, runs --scope "" against default.
func TestOneDefaultPerFlag(t *testing.T) {
	isolateConfig(t)
	root := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	type use struct{ cmd, def string }
	uses := map[string][]use{} // flag → where and with what default
	walkCommands(root, func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			uses[f.Name] = append(uses[f.Name], use{c.CommandPath(), flagDefault(f)})
		})
	})
	exempt := func(cmd, flag string) bool {
		for _, f := range paperSettings[cmd] {
			if f == flag {
				return true
			}
		}
		return false
	}
	var bad []string
	for name, us := range uses {
		byDef := map[string][]string{}
		for _, u := range us {
			if !exempt(u.cmd, name) {
				byDef[u.def] = append(byDef[u.def], u.cmd)
			}
		}
		if len(byDef) < 2 {
			continue
		}
		var parts []string
		for d, cmds := range byDef {
			parts = append(parts, fmt.Sprintf("%q on %s", d, strings.Join(cmds, ", ")))
		}
		sort.Strings(parts)
		bad = append(bad, "--"+name+": "+strings.Join(parts, "; "))
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	// The exemptions are real: each names a flag the command has.
	for cmd, flags := range paperSettings {
		c, _, err := root.Find(strings.Fields(cmd)[1:])
		if err != nil || c.CommandPath() != cmd {
			t.Errorf("paperSettings names %q, which is no command", cmd)
			continue
		}
		for _, f := range flags {
			if c.LocalFlags().Lookup(f) == nil {
				t.Errorf("paperSettings names %s --%s, which it does not have", cmd, f)
			}
		}
	}
}

// projectionFlags select a graph in Neo4j: only a command that reads (or
// loads) a graph uses them.
var projectionFlags = []string{"projection", "node-labels", "relationship-types", "relationship-weight-property", "node-key-property"}

// Help lists only what a command uses, durations as
// durations and lists as they are given. Before: serve listed --epoch
// (refused) and --epsilon-total/--delta-total (ignored), release the
// budget totals (ignored with a warning), runs and runs prune the
// projection flags (never read); timeouts printed "(default 30)" beside
// "(default 2m0s)", lists "(default [0.500000,1.000000,…])".
func TestHelpListsWhatIsUsed(t *testing.T) {
	isolateConfig(t)
	help := func(args ...string) string {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append(args, "--help")...)
		if code != 0 {
			t.Fatalf("%v --help: exit %d: %v", args, code, err)
		}
		return out
	}
	for _, c := range []struct {
		args  []string
		never []string
	}{
		{[]string{"serve"}, []string{"epoch", "epsilon-total", "delta-total", "graph"}},
		{[]string{"release"}, []string{"epsilon-total", "delta-total"}},
		{[]string{"runs"}, projectionFlags},
		{[]string{"runs", "prune"}, projectionFlags},
		{[]string{"budget"}, projectionFlags},
	} {
		h := help(c.args...)
		for _, f := range c.never {
			if regexp.MustCompile(`(?m)^\s+--` + f + `\b`).MatchString(h) {
				t.Errorf("%v --help lists --%s, which it refuses or ignores", c.args, f)
			}
		}
	}
	// Every command: projection flags only where a graph is read or
	// loaded, no list default in brackets, no duration without its unit.
	root := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	bareDuration := regexp.MustCompile(`(?m)^\s+--(\S+) duration .*\(default [0-9.]+\)$`)
	walkCommands(root, func(c *cobra.Command) {
		var b bytes.Buffer
		c.SetOut(&b)
		_ = c.Help()
		h := b.String()
		if strings.Contains(h, "(default [") {
			t.Errorf("%s --help prints a list default in brackets:\n%s", c.CommandPath(), grepLines(h, "(default ["))
		}
		if m := bareDuration.FindAllString(h, -1); m != nil {
			t.Errorf("%s --help prints a duration without its unit:\n%s", c.CommandPath(), strings.Join(m, "\n"))
		}
		// config show prints the effective value of every key a flag sets.
		reads := c.LocalFlags().Lookup("graph") != nil || c.Name() == "load" ||
			c.CommandPath() == "graphcloak projection save" || c.CommandPath() == "graphcloak config show"
		if !reads {
			for _, f := range projectionFlags {
				if fl := c.LocalFlags().Lookup(f); fl != nil && !fl.Hidden {
					t.Errorf("%s lists --%s but reads no graph", c.CommandPath(), f)
				}
			}
		}
	})
	if h := help("plan"); !strings.Contains(h, "(default 0.5,1,2,4,8)") && !strings.Contains(h, `--modes strings                         modes to forecast: per-node, private-answer (default per-node,private-answer)`) {
		t.Errorf("plan --help: lists not as given:\n%s", grepLines(h, "default"))
	}
	if h := help("runs"); !strings.Contains(h, "(default 30s)") || !strings.Contains(h, "(default 2m0s)") {
		t.Errorf("runs --help: timeouts not printed as durations:\n%s", grepLines(h, "timeout"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// plan forecasts the release the same configuration
// would make. Before, on karate at ε = 1, plan partitioned by the
// planted factions (2 communities, 0.535 right) at δ = 1e-6 while the
// release's dry run used Leiden (4 communities, 0.430) at δ = 1e-5.
func TestPlanDefaultsAreTheRelease(t *testing.T) {
	isolateConfig(t)
	out, code, err := runPrivacyCLI(t, "plan", "--graph", "karate", "--modes", "per-node", "--trials", "20", "-o", "json")
	if code != 0 {
		t.Fatalf("plan: exit %d: %v", code, err)
	}
	var r struct {
		Communities    string
		CommunityCount int
		Plan           struct {
			Forecasts []struct {
				Epsilon, Delta float64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Communities != "leiden" {
		t.Errorf("plan partitions by %q, locate by leiden", r.Communities)
	}
	if len(r.Plan.Forecasts) != 1 || r.Plan.Forecasts[0].Epsilon != 1 {
		t.Errorf("plan forecasts %+v, want one forecast at the release's ε = 1", r.Plan.Forecasts)
	}
	// The dry run of the same release names the same partition.
	dir := t.TempDir()
	vals, _ := karateReadings(t, dir, false)
	ledger := filepath.Join(dir, "ledger.json")
	if _, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", ledger, "--epsilon-total", "10", "--delta-total", "1e-5"); code != 0 {
		t.Fatalf("budget --init: exit %d: %v", code, err)
	}
	dry, _, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", vals, "--ledger", ledger,
		"--out", filepath.Join(dir, "r.json"), "--dry-run", "--forecast-trials", "20", "-o", "json")
	if code != 0 {
		t.Fatalf("release --dry-run: exit %d", code)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(dry), &d); err != nil {
		t.Fatal(err)
	}
	if n := communityCountIn(d); n != 0 && n != r.CommunityCount {
		t.Errorf("plan: %d communities, release --dry-run: %d", r.CommunityCount, n)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("the dry run wrote the release")
	}
}

// communityCountIn finds a "communityCount" or "communities" count in a
// JSON document (0 if none).
func communityCountIn(v any) int {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"communityCount", "communities"} {
			if n, ok := x[k].(float64); ok {
				return int(n)
			}
		}
		for _, e := range x {
			if n := communityCountIn(e); n != 0 {
				return n
			}
		}
	case []any:
		for _, e := range x {
			if n := communityCountIn(e); n != 0 {
				return n
			}
		}
	}
	return 0
}

// plan reads the budget from --ledger/--scope. Before,
// both flags were unknown (exit 2) and BUDGET BUYS needed the totals
// retyped.
func TestPlanReadsLedger(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	if _, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", ledger, "--scope", "b7", "--epsilon-total", "6", "--delta-total", "1e-6"); code != 0 {
		t.Fatalf("budget --init: exit %d: %v", code, err)
	}
	plan := func(args ...string) (map[string]any, int, error) {
		out, code, err := runPrivacyCLI(t, append([]string{"plan", "--graph", "karate", "--modes", "private-answer", "--epsilon", "2", "--trials", "4", "-o", "json"}, args...)...)
		var m map[string]any
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatal(err)
			}
		}
		return m, code, err
	}
	m, code, err := plan("--ledger", ledger, "--scope", "b7")
	if code != 0 {
		t.Fatalf("plan --ledger --scope: exit %d: %v", code, err)
	}
	b, _ := m["budget"].(map[string]any)
	if b == nil || b["epsilon"] != 6.0 || b["delta"] != 1e-6 {
		t.Fatalf("plan's budget %v, want the scope's (6, 1e-6)", m["budget"])
	}
	if s, _ := b["scope"].(map[string]any); s == nil || s["scope"] != "b7" {
		t.Errorf("plan's budget names no scope: %v", b)
	}
	typed, code, _ := plan("--epsilon-total", "6", "--delta-total", "1e-6")
	if code != 0 {
		t.Fatalf("plan --epsilon-total: exit %d", code)
	}
	f1 := m["plan"].(map[string]any)["forecasts"].([]any)[0].(map[string]any)["budgetBuys"]
	f2 := typed["plan"].(map[string]any)["forecasts"].([]any)[0].(map[string]any)["budgetBuys"]
	if fmt.Sprint(f1) != fmt.Sprint(f2) || f1 == nil {
		t.Errorf("BUDGET BUYS from the ledger %v, from the typed totals %v", f1, f2)
	}
	if _, code, _ := plan("--ledger", ledger, "--scope", "nope"); code != exitBadInput {
		t.Errorf("plan --scope nope: exit %d, want 3", code)
	}
	if _, code, _ := plan("--ledger", ledger, "--scope", "b7", "--epsilon-total", "6", "--delta-total", "1e-6"); code != exitUsage {
		t.Errorf("plan with both the ledger and totals: exit %d, want 2", code)
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

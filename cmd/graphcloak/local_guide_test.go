package main

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/sensor"
)

// guideCommands returns the commands of the first ```sh block of a doc
// (shCommands).
func guideCommands(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return shCommands(string(data))
}

// TestLocalGuide runs docs/local.md's walkthrough command by command, as
// written, from a directory laid out like the repository root; ">> FILE"
// appends the command's output to FILE as a shell would. It then checks
// what the guide says happens: the release holds the four reports and
// lists the 30 other nodes as missing, and unmask prints the readings;
// and every file the guide wrote (keys, odometers, lock files, ...) is
// one the repository's .gitignore ignores (checkIgnored).
func TestLocalGuide(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	cmds := guideCommands(t, "../../docs/local.md")
	root := repoRoot(t)
	t.Chdir(dir)
	if len(cmds) < 12 {
		t.Fatalf("found %d commands", len(cmds))
	}
	var unmasked string
	for _, c := range cmds {
		if c[0] != "graphcloak" {
			t.Fatalf("not a graphcloak command: %q", c)
		}
		args, appendTo := c[1:], ""
		if n := len(args); n >= 2 && args[n-2] == ">>" {
			args, appendTo = args[:n-2], args[n-1]
		}
		var out, errb strings.Builder
		if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d\n%s", strings.Join(c, " "), code, errb.String())
		}
		if appendTo != "" {
			f, err := os.OpenFile(appendTo, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(out.String())
			f.Close()
		}
		if args[0] == "unmask" {
			unmasked = out.String()
		}
	}
	// The readings, to within the grid 2^-k of the release (k ≥ 10 here).
	want := map[string]float64{"1": 0.51, "2": 0.52, "3": 0.53, "34": 0.534}
	for _, l := range strings.Split(unmasked, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		if w, ok := want[f[0]]; ok {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil || math.Abs(v-w) > 1.0/1024 {
				t.Errorf("unmask prints %s for node %s, the sensor read %v", f[1], f[0], w)
			}
			delete(want, f[0])
		}
	}
	if len(want) != 0 {
		t.Errorf("unmask does not print nodes %v:\n%s", want, unmasked)
	}
	data, _ := os.ReadFile("local-release.json")
	if strings.Count(string(data), `"grid"`) != 4 || !strings.Contains(string(data), `"missing"`) {
		t.Errorf("local-release.json is not the four reports with the missing nodes:\n%.600s", data)
	}
	// The defaults the guide states: keygen provisioned every sensor's
	// policy (σ floor for one report at √2·α under ε = 4 a day) and its
	// odometer; the odometer of node 1 records its one report.
	pol, err := sensor.LoadPolicy("sensors/1.policy.json", "1")
	if err != nil || pol.SigmaFloor != sensor.SigmaFloorFor(math.Sqrt2, 4, 0) || pol.MaxEpsilonPerDay != 4 || pol.MaxReportsPerDay != 24 {
		t.Errorf("provisioned policy %+v, %v", pol, err)
	}
	if od, _ := os.ReadFile("sensors/1.odometer.json"); strings.Count(string(od), `"releaseId"`) != 1 {
		t.Errorf("node 1's odometer:\n%s", od)
	}
	if od, _ := os.ReadFile("sensors/5.odometer.json"); strings.Contains(string(od), `"releaseId"`) {
		t.Errorf("node 5's odometer records a report:\n%s", od)
	}
	report := func(order, value string) (int, string, string) {
		var out, errb strings.Builder
		code := runArgs(context.Background(), []string{"sensor", "report", "--order", order, "--coordinator-key", "coord.key.pub",
			"--key", "sensors/1.key", "--policy", "sensors/1.policy.json", "--odometer", "sensors/1.odometer.json", "--node", "1", "--value", value}, &out, &errb)
		return code, out.String(), errb.String()
	}
	// The same order file again (a lost send): the recorded line, whatever the reading now is.
	recorded, _ := os.ReadFile("reports.jsonl")
	if code, line, msg := report("epoch.order", "0.99"); code != 0 || line == "" || !strings.HasPrefix(string(recorded), line) {
		t.Errorf("the same order with a second reading: exit %d: %s%s, want node 1's recorded line", code, line, msg)
	}
	// An order of ε = 1 (σ ≈ 1.62) is below the default σ floor, as the
	// guide says.
	var errb strings.Builder
	if code := runArgs(context.Background(), []string{"epoch", "open", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--delta", "1e-6",
		"--ledger", "local-ledger.json", "--scope", "building-7", "--epoch", "2026-11-28", "--valid-for", "1h", "--signing-key", "coord.key",
		"--out", "eps1.order"}, io.Discard, &errb); code != 0 {
		t.Fatalf("epoch open ε = 1: exit %d: %s", code, errb.String())
	}
	if code, _, msg := report("eps1.order", "0.51"); code != exitBadInput || !strings.Contains(msg, "below the sensor's floor") {
		t.Errorf("an order of ε = 1 with the default policy: exit %d: %s", code, msg)
	}
	checkIgnored(t, root, dir)
}

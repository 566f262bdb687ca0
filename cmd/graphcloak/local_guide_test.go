package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	checkIgnored(t, root, dir)
}

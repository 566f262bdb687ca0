package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock returns the commands of the first ```sh block after heading
// in README.md: continuation lines joined, comments dropped.
func readmeBlock(t *testing.T, heading string) [][]string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, heading)
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	return shCommands(s[i:])
}

// shCommands returns the commands of the first ```sh block in s:
// continuation lines joined, comments dropped (as a shell reads them); a
// trailing ">> FILE" is kept as two fields.
func shCommands(s string) [][]string {
	start := strings.Index(s, "```sh\n") + len("```sh\n")
	end := start + strings.Index(s[start:], "```")
	var cmds [][]string
	var cur string
	for _, line := range strings.Split(s[start:end], "\n") {
		if j := strings.Index(line, " #"); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			cur += cont + " "
			continue
		}
		cur += line
		if f := strings.Fields(cur); len(f) > 0 {
			cmds = append(cmds, f)
		}
		cur = ""
	}
	return cmds
}

// TestReadmeFileRun runs README's file-based example command by command,
// as written, from a directory laid out like the repository root, where
// examples/ is: every path in it is relative to that root.
func TestReadmeFileRun(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	cmds := readmeBlock(t, "### A file-based run")
	t.Chdir(dir)
	if len(cmds) < 6 {
		t.Fatalf("found %d commands", len(cmds))
	}
	for _, c := range cmds {
		if c[0] != "graphcloak" {
			t.Fatalf("not a graphcloak command: %q", c)
		}
		var out, errb strings.Builder
		if code := runArgs(context.Background(), c[1:], &out, &errb); code != 0 {
			t.Errorf("%s: exit %d\n%s", strings.Join(c, " "), code, errb.String())
		}
	}
}

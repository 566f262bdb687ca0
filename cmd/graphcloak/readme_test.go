package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
// examples/ is: every path in it is relative to that root. Every number
// the paragraph after the block quotes is then read from the output of
// the command that prints it (readmeQuotes), and everything the block
// wrote must be ignored by the repository's .gitignore.
func TestReadmeFileRun(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the numbers computed, not a cache's
	dir := t.TempDir()
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	cmds := readmeBlock(t, "### A file-based run")
	text := readmeAfterBlock(t, "### A file-based run")
	root := repoRoot(t)
	t.Chdir(dir)
	if len(cmds) < 6 {
		t.Fatalf("found %d commands", len(cmds))
	}
	outputs := make([]string, len(cmds))
	for i, c := range cmds {
		if c[0] != "graphcloak" {
			t.Fatalf("not a graphcloak command: %q", c)
		}
		var out, errb strings.Builder
		if code := runArgs(context.Background(), c[1:], &out, &errb); code != 0 {
			t.Errorf("%s: exit %d\n%s", strings.Join(c, " "), code, errb.String())
		}
		outputs[i] = out.String()
	}
	output := func(sub string, flag string) string {
		for i, c := range cmds {
			if c[1] == sub && (flag == "" || slices.Contains(c, flag)) {
				return outputs[i]
			}
		}
		t.Fatalf("README's block has no %s %s", sub, flag)
		return ""
	}
	for _, q := range readmeQuotes {
		quoted := namedMatch(q.readme, text)
		if quoted == nil {
			t.Errorf("README no longer says %q (update readmeQuotes with it)", q.readme)
			continue
		}
		out := output(q.command, q.flag)
		printed := namedMatch(q.output, out)
		if printed == nil {
			t.Errorf("graphcloak %s %s no longer prints %q:\n%s", q.command, q.flag, q.output, out)
			continue
		}
		for name, v := range quoted {
			if printed[name] != v {
				t.Errorf("README quotes %s = %s; graphcloak %s %s prints %s", name, v, q.command, q.flag, printed[name])
			}
		}
	}
	checkIgnored(t, root, dir)
}

// readmeQuotes pairs each number README quotes after its file-based
// block (a pattern over the paragraph, whitespace folded) with the line
// of output it comes from: the named groups of both must be equal.
var readmeQuotes = []struct {
	readme        string
	command, flag string
	output        string
}{
	{`per-node release at (?P<right>[0-9.]+ \[[0-9.]+, [0-9.]+\]) at ε = 1 against a guess of (?P<guess>[0-9.]+)`,
		"plan", "", `(?m)^per-node +discrete +1 +(?P<right>[0-9.]+ \[[0-9.]+, [0-9.]+\]) +[0-9.]+ \((?P<guess>[0-9.]+)\)`},
	{`at ε = 1 it beats a guess from (?P<beats>[0-9.]+) units and resolves \(right ≥ (?P<right>[0-9.]+)\) sources of (?P<resolves>[0-9.]+) units`,
		"plan", "", `per-node at ε = 1, .*resolves sources of (?P<resolves>[0-9.]+) units or more: right at least (?P<right>[0-9.]+) .*beats a guess from (?P<beats>[0-9.]+) units`},
	{`private answer is right (?P<at1>[0-9.]+) of the time at ε = 1`,
		"plan", "", `answer audit ε = 1: .* answered with its community (?P<at1>[0-9.]+) of the time`},
	{`of the time at ε = 1 and (?P<at05>[0-9.]+) at ε = 0.5`,
		"plan", "", `answer audit ε = 0.5: .* answered with its community (?P<at05>[0-9.]+) of the time`},
	{`of the time at ε = 1 and (?P<at05>[0-9.]+) at ε = 0.5`,
		"locate", "--private-answer", `answered with its community (?P<at05>[0-9.]+) of the time`},
	{`forecasts the release \*\*(?P<verdict>at chance)\*\*`,
		"release", "--dry-run", `verdict +(?P<verdict>(?i:at chance)):`},
}

// readmeAfterBlock returns the paragraph after the first ```sh block
// following heading, whitespace folded to single spaces.
func readmeAfterBlock(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = s[strings.Index(s, heading):]
	s = s[strings.Index(s, "```sh\n")+len("```sh\n"):]
	s = strings.TrimLeft(s[strings.Index(s, "```")+len("```"):], "\n")
	if end := strings.Index(s, "\n\n"); end >= 0 {
		s = s[:end]
	}
	return strings.Join(strings.Fields(s), " ")
}

// namedMatch returns the named groups of pattern's first match in s
// (lower-cased, so a verdict in capitals compares), nil if none.
func namedMatch(pattern, s string) map[string]string {
	re := regexp.MustCompile(pattern)
	m := re.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for i, name := range re.SubexpNames() {
		if name != "" {
			out[name] = strings.ToLower(m[i])
		}
	}
	return out
}

// checkIgnored fails t unless every file written in dir (a directory laid
// out like the repository root, examples/ a link to the repository's) is
// ignored by the .gitignore of the repository at root, as `git status --porcelain`
// reads it in a fresh checkout: dir is made a repository with that
// .gitignore as its exclude file, and its status must be empty.
func checkIgnored(t *testing.T, root, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH: cannot check what the repository ignores")
	}
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q", ".")
	exclude := append(ignore, "\n/examples\n"...)
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), exclude, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("files the commands wrote that git would add (.gitignore does not list them):\n%s", st)
	}
}

// repoRoot is the repository's root, two directories above this package
// (call it before t.Chdir).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// README stays short and starts with what to run: at most 200 lines, its
// first code block the demo and the test command.
func TestReadmeShortAndFirstCommands(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > 200 {
		t.Errorf("README.md has %d lines, at most 200", n)
	}
	_, rest, _ := strings.Cut(text, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "go run ./cmd/graphcloak demo") || !strings.HasPrefix(lines[1], "bash scripts/test.sh") {
		t.Errorf("README's first code block is not the two commands:\n%s", block)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/internal/jobfiles"
)

// checkpointBlocks is how many blocks the audit checkpoint at path holds
// (0 when there is none or it is being replaced).
func checkpointBlocks(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// A journal: the header's line, then one whole line a block.
	lines := bytes.Count(b, []byte("\n"))
	return max(0, lines-1)
}

// startAudit starts the built binary's audit with the checkpoint written
// after every block and progress lines every millisecond.
func startAudit(t *testing.T, bin string, args []string, stderr *bytes.Buffer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), jobfiles.CheckpointPeriodEnv+"=0s", progressPeriodEnv+"=1ms")
	cmd.Stdout, cmd.Stderr = new(bytes.Buffer), stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// waitForBlocks waits until the checkpoint at path holds more than n
// blocks (or the process ends, or 60 s pass) and returns how many.
func waitForBlocks(t *testing.T, path string, n int, exited <-chan struct{}) int {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		if k := checkpointBlocks(path); k > n {
			return k
		}
		select {
		case <-exited:
			t.Fatalf("the audit ended before its checkpoint held %d blocks", n+1)
		case <-deadline:
			t.Fatalf("no checkpoint of more than %d blocks at %s after 60 s", n, path)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestAuditSurvivesKill (issue 61, deliver 4): an audit of the built
// binary stopped by SIGTERM saves its checkpoint and says how to resume;
// the next run resumes it (and says so), is killed with SIGKILL (nothing
// saved at the end: only the checkpoint's last atomic write), and the run
// after resumes again and writes the certificate an uninterrupted run
// writes, its state byte for byte; the checkpoint is then gone. The
// uninterrupted run's stderr on a pipe carries the progress lines:
// done/total and ETA, and one done line, its last. 3 000 nodes, 94 blocks.
func TestAuditSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it")
	}
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the installation key
	bin := buildGraphcloak(t)
	dir := t.TempDir()
	common := []string{"audit", "--graph", "pa:n=3000,m=3,seed=2", "--tau", "1"}
	whole, resumed := filepath.Join(dir, "whole.json"), filepath.Join(dir, "resumed.json")
	cp := resumed + ".checkpoint"

	var stderr bytes.Buffer
	run := startAudit(t, bin, append(common, "--save", whole), &stderr)
	if err := run.Wait(); err != nil {
		t.Fatalf("the uninterrupted audit: %v\n%s", err, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if strings.HasPrefix(l, "answer audit:") {
			lines = append(lines, l)
		}
	}
	step := regexp.MustCompile(`^answer audit: \d+/3000 \(\d+%\), \d+s elapsed, ETA (\d+s|\d+m\d+s|\?)$`)
	done := regexp.MustCompile(`^answer audit: done 3000/3000 in \d+s$`)
	if len(lines) < 2 || !step.MatchString(lines[0]) || !done.MatchString(lines[len(lines)-1]) {
		t.Errorf("progress on a pipe: want step lines with done/total and ETA, then one done line:\n%s", stderr.String())
	}
	for _, l := range lines[:len(lines)-1] {
		if !step.MatchString(l) {
			t.Errorf("a progress line that is not a step's (or a done line before the last): %q", l)
		}
	}

	exited := func(cmd *exec.Cmd) (<-chan struct{}, func() error) {
		ch, errc := make(chan struct{}), make(chan error, 1)
		go func() { errc <- cmd.Wait(); close(ch) }()
		return ch, func() error { <-ch; return <-errc }
	}
	// Without the store: the uninterrupted run kept its pass there, and a
	// run that reused it would have nothing to interrupt.
	args := append(common, "--save", resumed, "--cache-dir", "none")
	stderr.Reset()
	run = startAudit(t, bin, args, &stderr)
	ch, wait := exited(run)
	waitForBlocks(t, cp, 5, ch)
	run.Process.Signal(syscall.SIGTERM)
	var ee *exec.ExitError
	if err := wait(); !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("SIGTERM: %v, want exit %d\n%s", err, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "audit interrupted:") || !strings.Contains(stderr.String(), "run the same command again to resume") {
		t.Errorf("SIGTERM: stderr does not say the audit can be resumed:\n%s", stderr.String())
	}
	afterTerm := checkpointBlocks(cp)

	stderr.Reset()
	run = startAudit(t, bin, args, &stderr)
	ch, wait = exited(run)
	k := waitForBlocks(t, cp, afterTerm+3, ch)
	run.Process.Signal(syscall.SIGKILL)
	wait()
	if !strings.Contains(stderr.String(), "resuming the audit from "+cp) {
		t.Errorf("the second run does not say it resumes:\n%s", stderr.String())
	}
	if _, err := os.Stat(resumed); err == nil {
		t.Fatal("a killed audit left a certificate")
	}
	if k >= 94 {
		t.Fatalf("the run was killed after it finished (%d blocks)", k)
	}

	out, errs, code := runBin(t, bin, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("the last run: exit %d: %s", code, errs)
	}
	var r struct{ ResumedSources int }
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.ResumedSources < 32*(k-1) || r.ResumedSources >= 3000 {
		t.Errorf("the last run resumed %d sources (%v), want at least the %d blocks seen before SIGKILL", r.ResumedSources, err, k)
	}
	if a, b := certificateStateOf(t, whole), certificateStateOf(t, resumed); a != b {
		t.Error("the resumed certificate's state differs from the uninterrupted run's")
	}
	// The whole file too: a certificate is a function of the graph, τ, T
	// and the version (no creation time), sealed under one key.
	if a, b := readFile(t, whole), readFile(t, resumed); a != b {
		t.Errorf("the resumed certificate file differs from the uninterrupted run's:\n%.300s\n%.300s", a, b)
	}
	if _, err := os.Stat(cp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoint outlived its audit: %v", err)
	}
}

// certificateStateOf is the certificate's state as stored (all but its
// header, whose creation time differs from run to run).
func certificateStateOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ State json.RawMessage }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return string(c.State)
}

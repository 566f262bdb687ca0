package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

// argvResult is one command line's outcome in TestArgvBatch's output.
// Bytes, not strings: JSON strings would replace invalid UTF-8.
type argvResult struct {
	Args           [][]byte // the command line run, for the caller to check
	Code           int
	Stdout, Stderr []byte
	// Drivers is how many Neo4j drivers the command line opened
	// (connector.DriversOpened before and after it): one per process.
	Drivers int64
}

// TestArgvBatch is a helper process of the integration tests, not a test
// of its own (as os/exec's TestHelperProcess): with ARGV_BATCH
// naming a file of command lines, each a JSON array of arguments on a
// line (each argument base64, as encoding/json writes a []byte: the
// arguments may be invalid UTF-8), it runs each one through runArgs — the binary's main without the
// process — and writes the command line, its exit code, stdout and
// stderr and the Neo4j drivers it opened, a JSON object a line, to ARGV_BATCH_OUT. Thousands of command lines that are
// refused before connecting then cost one process, not thousands.
func TestArgvBatch(t *testing.T) {
	in, out := os.Getenv("ARGV_BATCH"), os.Getenv("ARGV_BATCH_OUT")
	if in == "" || out == "" {
		t.Skip("a helper process of the integration tests (ARGV_BATCH and ARGV_BATCH_OUT unset)")
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var results bytes.Buffer
	enc := json.NewEncoder(&results)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var raw [][]byte
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		args := make([]string, len(raw))
		for i, a := range raw {
			args[i] = string(a)
		}
		var so, se bytes.Buffer
		before := connector.DriversOpened()
		code := runArgs(context.Background(), args, &so, &se)
		drivers := connector.DriversOpened() - before
		if err := enc.Encode(argvResult{Args: raw, Code: code, Stdout: so.Bytes(), Stderr: se.Bytes(), Drivers: drivers}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, results.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The built binary, started on a Δ2 that takes minutes (the dense
// eigendecomposition of a 2 500-node graph: 1.5 s·2.5^3.6 ≈ 40 s on the
// reference machine, longer when shared), must stop on SIGINT and SIGTERM
// with exit code 130 (docs/usage.md's exit-code table) long before the work
// could have finished. The signal is sent once the command logs that it
// started computing.
func TestSignalStopsLongSensitivity(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "graphcloak")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "sensitivity", "--graph", "pa:n=2500,m=3", "--tau", "20", "--method", "dense", "--log-level", "debug")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		started := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(stderr)
			once := false
			for sc.Scan() {
				if !once && strings.Contains(sc.Text(), "computing Δ2") {
					once = true
					close(started)
				}
			}
		}()
		select {
		case <-started:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("no \"computing Δ2\" log line")
		}
		time.Sleep(500 * time.Millisecond) // inside the eigendecomposition
		// The dense eigendecomposition alone takes longer than the 30 s
		// the helper waits: not stopping by then means the signal was
		// ignored.
		expectInterrupted(t, cmd, sig, "sensitivity")
	}
}

// The other long commands stop the same way, 130 on SIGINT or SIGTERM,
// and an interrupted release charges nothing and writes nothing: each is
// started on work that takes minutes (Leiden on 2·10⁶ nodes, 10⁵ trials,
// the Δ2 of a hub-heavy graph) and signalled after two seconds, inside
// loading or computing; either must stop.
func TestSignalStopsLongCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "graphcloak")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const n = 50000
	var csv strings.Builder
	csv.WriteString("node,value\n")
	for k := range n {
		fmt.Fprintf(&csv, "%d,%g\n", k, float64(k%7)/7)
	}
	readings, ledger, out := filepath.Join(dir, "v.csv"), filepath.Join(dir, "ledger.json"), filepath.Join(dir, "r.json")
	if err := os.WriteFile(readings, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(bin, "budget", "--init", "--ledger", ledger, "--scope", "default", "--epsilon-total", "10",
		"--delta-total", "1e-5").CombinedOutput(); err != nil {
		t.Fatalf("budget --init: %v\n%s", err, b)
	}
	before, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"communities", "--graph", "pa:n=2000000,m=5,seed=1", "-o", "json"}},
		{syscall.SIGTERM, []string{"experiment", "graph", "--trials", "100000"}},
		{syscall.SIGINT, []string{"release", "--graph", fmt.Sprintf("pa:n=%d,m=10", n), "--values", readings, "--tau", "1",
			"--ledger", ledger, "--out", out, "--epsilon", "1", "--delta", "1e-6"}},
	} {
		cmd := exec.Command(bin, c.args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		expectInterrupted(t, cmd, c.sig, c.args[0])
	}
	if after, err := os.ReadFile(ledger); err != nil || string(after) != string(before) {
		t.Errorf("the interrupted release changed the ledger (%v)", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted release left %s (%v)", out, err)
	}
}

// expectInterrupted sends sig to the running cmd and expects it to exit
// with code 130 within 30 s (killing it otherwise); the time it took is
// logged, never asserted.
func expectInterrupted(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, what string) {
	t.Helper()
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Errorf("%s on %v: exit %v, want code %d", what, sig, err, exitInterrupted)
		}
		t.Logf("%s: stopped %v after %v", what, time.Since(sent), sig)
	case <-time.After(30 * time.Second):
		cmd.Process.Signal(os.Kill)
		t.Fatalf("%s: still running 30 s after %v", what, sig)
	}
}

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The built binary, started on a Δ2 that takes minutes (the dense
// eigendecomposition of a 2 500-node graph: 1.5 s·2.5^3.6 ≈ 40 s on the
// reference machine, longer when shared), must stop on SIGINT and SIGTERM
// with exit code 130 (README's exit-code table) long before the work
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
				t.Errorf("%v: exit %v, want code %d", sig, err, exitInterrupted)
			}
			t.Logf("%v: stopped %v after the signal", sig, time.Since(sent))
		case <-time.After(30 * time.Second):
			// The dense eigendecomposition alone takes longer than this:
			// not stopping by now means the signal was ignored.
			cmd.Process.Signal(os.Kill)
			t.Fatalf("%v: still running 30 s after the signal", sig)
		}
	}
}

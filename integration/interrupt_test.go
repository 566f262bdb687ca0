//go:build unix

package integration

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestInterruptDuringWriteBack sends SIGINT (as Ctrl-C would) and SIGTERM
// to a release in the middle of its write-back: the binary must stop
// promptly with exit 130 (interrupted), record the run as interrupted, and
// leave the server usable.
func TestInterruptDuringWriteBack(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			s := neo4jServer(t)
			d := rawDriver(t, s)
			f := connectedSBM(t, []int{300, 300, 300}, 0.03, 0.001)
			f.load(t, d)
			e := newE2E(t, s, d, f)
			t.Cleanup(func() {
				query(t, d, "MATCH (r:GraphcloakRun) WHERE (r.parameters CONTAINS $p OR r.scope = $p OR r.writeProperty = $p) DELETE r", map[string]any{"p": e.scope})
				query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
			})
			cmd := exec.Command(graphcloakBinary(t), e.releaseArgs("epoch-int", "--batch-size", "1")...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+s.Password)
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			deadline := time.Now().Add(5 * time.Minute)
			for countWritten(t, d, f.Label, e.write) == 0 {
				select {
				case err := <-done:
					t.Fatalf("release ended before the signal (err %v)\nstderr: %s", err, se.String())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no value written within 5 minutes")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after %v", sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("after %v: err %v, want exit 130\nstderr: %s", sig, err, se.String())
			}
			t.Logf("exit 130 %.2f s after %v", time.Since(t0).Seconds(), sig)
			runs := runsWriting(t, d, e.write)
			if len(runs) != 1 || runs[0]["status"] != "interrupted" {
				t.Fatalf("run records %v, want one interrupted run", runs)
			}
			if n := countWritten(t, d, f.Label, e.write); n >= int64(len(f.Keys)) {
				t.Fatalf("all %d values written despite the interruption", n)
			}
		})
	}
}

package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
)

// slurmCluster returns the environment of a running Slurm cluster: the one
// SLURM_CONF names (scripts/test.sh starts one), else one this test starts
// with scripts/slurm.sh in a directory of its own and stops at its end.
// Where none can start (not root, no packages) the test skips and says
// why — or fails, under GRAPHCLOAK_REQUIRE_SLURM=1 or CI=true.
func slurmCluster(t *testing.T) []string {
	t.Helper()
	if conf := os.Getenv("SLURM_CONF"); conf != "" {
		if out, err := exec.Command("scontrol", "ping").CombinedOutput(); err == nil && strings.Contains(string(out), "UP") {
			return os.Environ()
		}
	}
	script := filepath.Join(repoRoot(t), "scripts", "slurm.sh")
	dir := filepath.Join(t.TempDir(), "slurm")
	out, err := exec.Command("bash", script, "start", dir).CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("scripts/slurm.sh could not start a Slurm cluster: %v\n%s", err, out)
		if os.Getenv("GRAPHCLOAK_REQUIRE_SLURM") == "1" || os.Getenv("CI") == "true" {
			t.Fatal(msg + "(GRAPHCLOAK_REQUIRE_SLURM=1 or CI=true: a missing Slurm is a failure)")
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("bash", script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("scripts/slurm.sh stop: %v\n%s", err, out)
		}
	})
	return append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))
}

// writeChordRing writes a connected graph of n nodes to path: a ring and
// two chords a node, chosen by fixed arithmetic (no randomness).
func writeChordRing(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	seen := map[[2]int]bool{}
	add := func(u, v int) {
		u, v = min(u, v), max(u, v)
		if u == v || seen[[2]int{u, v}] {
			return
		}
		seen[[2]int{u, v}] = true
		fmt.Fprintf(&b, "n%d,n%d\n", u, v)
	}
	for i := range n {
		add(i, (i+1)%n)
		add(i, (i*i*7+3)%n)
		add(i, (i*13+101)%n)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The answer's audit of a 2 000-node graph as a Slurm job array of 4 tasks
// (examples/slurm/submit.sh on a cluster scripts/slurm.sh started) merges
// to the certificate one process writes, byte for byte. A task that fails
// for good is named by status.sh, the merge refuses the parts without it
// and writes nothing, and --resubmit reruns that task alone and merges.
func TestSlurmAuditArray(t *testing.T) {
	env := slurmCluster(t)
	bin := graphcloakBinary(t)
	dir := t.TempDir()
	graph := filepath.Join(dir, "graph.csv")
	writeChordRing(t, graph, 2000)
	key := filepath.Join(dir, "ledger.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(key, k); err != nil {
		t.Fatal(err)
	}
	// Every run sees the same empty configuration and store of work.
	env = append(env, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"CPUS_PER_TASK=1", "MEM_PER_TASK=512M", "ATTEMPTS=1",
		// A wrapper that fails shard 2 while WORK/fail-2 exists.
		"GRAPHCLOAK="+failingWrapper(t, dir, bin))
	flags := []string{"--graph", "file:" + graph, "--tau", "1", "--ledger-key", key}
	single := filepath.Join(dir, "single.json")
	runWith(t, env, bin, append([]string{"audit", "--save", single}, flags...)...)

	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "fail-2"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(repoRoot(t), "examples", "slurm")
	runWith(t, env, "bash", append([]string{filepath.Join(examples, "submit.sh"), "audit", "4", work, "--"}, flags...)...)
	waitForMerge(t, env, work)
	status, err := commandWith(env, "bash", filepath.Join(examples, "status.sh"), work)
	if err == nil || !strings.Contains(status, "3 of 4 parts") || !strings.Contains(status, "failed tasks: 2 ") {
		t.Fatalf("status.sh with task 2 failed: %v\n%s", err, status)
	}
	if _, err := os.Stat(filepath.Join(work, "certificate.json")); !os.IsNotExist(err) {
		t.Fatalf("the merge wrote a certificate without part 2 (%v)", err)
	}
	if log, _ := os.ReadFile(filepath.Join(work, "logs", "merge.log")); !strings.Contains(string(log), "lack shards [2] of 4") {
		t.Fatalf("the merge's log does not name the missing part:\n%s", log)
	}

	if err := os.Remove(filepath.Join(work, "fail-2")); err != nil {
		t.Fatal(err)
	}
	runWith(t, env, "bash", filepath.Join(examples, "submit.sh"), "--resubmit", work)
	waitForMerge(t, env, work)
	status, err = commandWith(env, "bash", filepath.Join(examples, "status.sh"), work)
	if err != nil || !strings.Contains(status, "4 of 4 parts") {
		t.Fatalf("status.sh after the resubmission: %v\n%s", err, status)
	}
	want, err := os.ReadFile(single)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(work, "certificate.json"))
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(work, "logs", "merge.log"))
		t.Fatalf("no merged certificate: %v\nmerge log:\n%s", err, log)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the merged certificate (%d bytes) differs from the single run's (%d bytes)", len(got), len(want))
	}
}

// failingWrapper writes a script that runs bin, except that it fails shard
// 2 of 4 while WORK/fail-2 exists.
func failingWrapper(t *testing.T, dir, bin string) string {
	t.Helper()
	path := filepath.Join(dir, "graphcloak-wrapper")
	script := fmt.Sprintf(`#!/bin/sh
case " $* " in *" --shard 2/4 "*) [ -e "$ARRAY_WORK/fail-2" ] && { echo "wrapper: shard 2 fails" >&2; exit 7; } ;; esac
exec %q "$@"
`, bin)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitForMerge waits until the merge job WORK/merge.jobid names has left
// the queue (it runs after every array task has ended).
func waitForMerge(t *testing.T, env []string, work string) {
	t.Helper()
	id, err := os.ReadFile(filepath.Join(work, "merge.jobid"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		out, err := commandWith(env, "squeue", "-h", "-j", strings.TrimSpace(string(id)), "-o", "%T")
		if err != nil || strings.TrimSpace(out) == "" {
			return
		}
		time.Sleep(time.Second)
	}
	out, _ := commandWith(env, "squeue")
	t.Fatalf("the merge job %s is still queued after 10 minutes:\n%s", id, out)
}

func commandWith(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func runWith(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	if out, err := commandWith(env, name, args...); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

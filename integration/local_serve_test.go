package integration

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/privacy"
)

// TestServeOpenEpochsNeo4j: serve --open-epochs --graph neo4j opens the
// current slot's epoch on the projection (service.Epochs through
// Stores.OpenEpoch), collects the sensors' reports posted to
// /epoch/reports, and at the slot's end closes the epoch into its release
// file and writes it to the projection under a succeeded release run
// (Stores.PublishCollected on the service's one connection): the values
// of the nodes that reported, bound to the run, and nothing for the
// others; with --max-runs 1 it then stops, exit 0.
func TestServeOpenEpochsNeo4j(t *testing.T) {
	t.Parallel() // it mostly waits for its slot (integration/doc.go)
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{10, 10}, 0.3, 0.05, 13)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	var nodes strings.Builder
	for _, k := range f.Keys {
		fmt.Fprintln(&nodes, k)
	}
	os.WriteFile(p("nodes.txt"), []byte(nodes.String()), 0o644)
	mustCLI := func(args ...string) string {
		t.Helper()
		r := runCLI(t, s.Password, args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s\n%s", args[0], r.Code, r.Stderr, r.Stdout)
		}
		return r.Stdout
	}
	mustCLI("keygen", "--out", p("master.key"))
	mustCLI("keygen", "--signing", "--out", p("coord.key"))
	mustCLI("keygen", "--master", p("master.key"), "--nodes", p("nodes.txt"), "--out-dir", p("sensors"), "--mac-csv", p("macs.csv"),
		"--max-epsilon-per-day", "1000", "--sigma-floor", "1e-6")
	mustCLI("budget", "--init", "--ledger", p("ledger.json"), "--scope", e.scope, "--epsilon-total", "10", "--delta-total", "1e-5")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// Start early in a 30 s slot, so the reports arrive within it.
	const slot = 30 * time.Second
	if left := slot - time.Duration(time.Now().UnixNano())%slot; left < 20*time.Second {
		time.Sleep(left + 500*time.Millisecond)
	}
	args := append([]string{"serve", "--open-epochs", "--schedule", "@every 30s", "--signing-key", p("coord.key"), "--mac-keys", p("macs.csv"),
		"--journal", p("journal"), "--listen", addr, "--max-runs", "1", "--tau", "1", "--epsilon", "1", "--delta", "1e-6",
		"--ledger", p("ledger.json"), "--scope", e.scope, "--write-property", e.write}, e.projectionFlags()...)
	proc := startServe(t, s, args)
	var order string
	for deadline := time.Now().Add(20 * time.Second); order == ""; time.Sleep(100 * time.Millisecond) {
		if m, _ := filepath.Glob(p("journal/*.order")); len(m) == 1 {
			order = m[0]
		} else if time.Now().After(deadline) {
			proc.stop(t, syscall.SIGKILL, -1)
			t.Fatalf("no order in the journal within 20s:\n%s", proc.stderr.String())
		}
	}
	var reports strings.Builder
	reported := map[string]bool{}
	for i, k := range f.Keys[:3] {
		node := fmt.Sprint(k)
		reported[node] = true
		reports.WriteString(mustCLI("sensor", "report", "--order", order, "--coordinator-key", p("coord.key.pub"),
			"--key", p("sensors/"+node+".key"), "--node", node, "--value", fmt.Sprint(f.Obs[i]),
			"--policy", p("sensors/"+node+".policy.json"), "--odometer", p("sensors/"+node+".odometer.json")))
	}
	res, err := http.Post("http://"+addr+"/epoch/reports", "application/jsonl", strings.NewReader(reports.String()))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /epoch/reports: %s", res.Status)
	}
	select {
	case <-proc.done:
	case <-time.After(2 * slot):
		proc.stop(t, syscall.SIGKILL, -1)
		t.Fatalf("serve --max-runs 1 did not stop after its epoch closed:\n%s", proc.stderr.String())
	}
	if code := proc.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, proc.stderr.String())
	}
	rels, _ := filepath.Glob(p("journal/*.release.json"))
	if len(rels) != 1 {
		t.Fatalf("release files %v:\n%s", rels, proc.stderr.String())
	}
	rel, err := privacy.ReadReleaseFile(rels[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for i, k := range rel.Keys {
		want[k] = rel.Values[i]
	}
	runs := query(t, d, "MATCH (r:GraphcloakRun {scope: $s}) RETURN r.runId AS id, r.status AS st", map[string]any{"s": e.scope})
	if len(runs) != 1 {
		t.Fatalf("%d run records in the scope, want the collected epoch's one:\n%s", len(runs), proc.stderr.String())
	}
	id, _ := runs[0].Get("id")
	if st, _ := runs[0].Get("st"); st != "succeeded" {
		t.Errorf("run %v: status %v", id, st)
	}
	rows := query(t, d, "MATCH (n:`"+f.Label+"`) RETURN toString(n.key) AS k, n[$p] AS v, n[$p + '_runId'] AS r", map[string]any{"p": e.write})
	for _, r := range rows {
		k, _ := r.Get("k")
		v, _ := r.Get("v")
		run, _ := r.Get("r")
		if reported[k.(string)] {
			if v != want[k.(string)] || run != id {
				t.Errorf("node %v: %v of run %v, want %v of %v", k, v, run, want[k.(string)], id)
			}
		} else if v != nil {
			t.Errorf("node %v did not report but holds %v", k, v)
		}
	}
}

package local

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCollectorKilledMidEpoch runs a collector in a child process (this
// test binary, TestKillHelper), feeds it reports one at a time, reads its
// acknowledgements and kills it with SIGKILL mid-epoch. A collector
// opened again on the journal has every acknowledged report, stores none
// twice (the journal holds one line per node), and accepts the rest.
func TestCollectorKilledMidEpoch(t *testing.T) {
	nodes, keys := testKeys(200)
	o := testOrder(nodes)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LOCAL_KILL_HELPER="+dir)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{}
	sc := bufio.NewScanner(out)
	go func() {
		// Write everything: the child acknowledges while reading.
		w := bufio.NewWriter(in)
		for i, n := range nodes {
			w.Write(line(t, report(o, keys, n, int64(i))))
			w.WriteByte('\n')
			w.Flush()
		}
	}()
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "ack" {
			acked[f[1]] = true
		}
		if len(acked) == 60 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(acked) < 60 {
		t.Fatalf("child acknowledged only %d reports", len(acked))
	}
	c := openTest(t, o, keys, dir, &clock{t0})
	defer c.Close()
	p := c.Progress()
	if p.Reported < len(acked) {
		t.Errorf("restarted collector has %d reports, %d were acknowledged", p.Reported, len(acked))
	}
	// Send everything again: each node is stored (now or before) exactly once.
	var batch [][]byte
	for i, n := range nodes {
		batch = append(batch, line(t, report(o, keys, n, int64(i))))
	}
	for _, r := range c.Submit(batch, 1) {
		if !r.Reason.Stored() {
			t.Fatalf("resent report refused: %+v", r)
		}
		if acked[r.Node] && r.Reason != Duplicate {
			t.Errorf("acknowledged report of %s was not stored before the kill", r.Node)
		}
	}
	rel, err := c.CloseEpoch("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Keys) != len(nodes) {
		t.Errorf("release has %d rows, want %d", len(rel.Keys), len(nodes))
	}
	for i := range rel.Keys {
		if rel.Grid[i] != int64(i) {
			t.Errorf("%s: grid %d, want %d", rel.Keys[i], rel.Grid[i], i)
		}
	}
}

// TestKillHelper is the child of TestCollectorKilledMidEpoch: a collector
// that acknowledges each report on stdout once Submit has returned.
func TestKillHelper(t *testing.T) {
	dir := os.Getenv("LOCAL_KILL_HELPER")
	if dir == "" {
		t.Skip("the child process of TestCollectorKilledMidEpoch")
	}
	nodes, keys := testKeys(200)
	c, err := OpenCollector(CollectorOptions{Order: testOrder(nodes), OrderSHA256: orderSHA(testOrder(nodes)), MACKeys: keys, JournalDir: dir, Now: (&clock{t0}).now})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = c.SubmitReader(os.Stdin, 1, func(res []Result) error {
		for _, r := range res {
			if r.Reason == Accepted {
				b, _ := json.Marshal(r.Node)
				fmt.Printf("ack %s\n", strings.Trim(string(b), `"`))
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	time.Sleep(time.Hour) // wait for the kill
}

package stores

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
)

// TestDetectionRun: Run writes the partition Leiden finds at the
// configured seed (community.Leiden called directly, the oracle) as CSV,
// names the file in the summary only in write mode, lists the nodes only
// when asked, reports the detection as a phase named by method and size,
// and writes nothing back for a graph outside the database (it never asks
// for the write-back's progress).
func TestDetectionRun(t *testing.T) {
	ctx := context.Background()
	cfg := &config.Loaded{}
	cfg.Write.Concurrency, cfg.Write.RandomSeed = 2, 7
	st, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		d, err := st.LoadDetection(ctx, "karate")
		if err != nil {
			t.Fatal(err)
		}
		want, err := community.Leiden(d.Graph.Graph, community.LeidenOptions{Resolution: 1.5, Seed: 7, Concurrency: 2})
		if err != nil {
			t.Fatal(err)
		}
		var wantCSV bytes.Buffer
		if err := community.WriteAssignment(&wantCSV, d.Graph.Graph.Keys(), want); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "communities.csv")
		out, err := atomicfile.Open("out", path, nil)
		if err != nil {
			t.Fatal(err)
		}
		var phases []string
		sum, err := d.Run(ctx, DetectionRun{Method: "leiden", Resolution: 1.5, Stream: stream, CSV: out, Out: path, Nodes: stream,
			Say:      func(line string) { t.Errorf("karate is quick, yet: %q", line) },
			Phase:    func(label string) func() { phases = append(phases, label); return func() {} },
			Progress: func(label string) func(int, int) { t.Errorf("progress of %q outside the database", label); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wantCSV.Bytes()) {
			t.Errorf("stream %v: the CSV is not Leiden's partition at seed 7:\n%s\nwant\n%s", stream, got, wantCSV.Bytes())
		}
		if wantOut := map[bool]string{false: path, true: ""}[stream]; sum.Out != wantOut {
			t.Errorf("stream %v: summary names %q, want %q", stream, sum.Out, wantOut)
		}
		if wantNodes := map[bool]int{false: 0, true: 34}[stream]; len(sum.Nodes) != wantNodes {
			t.Errorf("stream %v: %d nodes listed, want %d", stream, len(sum.Nodes), wantNodes)
		}
		if len(phases) != 1 || phases[0] != "communities (leiden) on 34 nodes" {
			t.Errorf("phases %q", phases)
		}
		if sum.WriteProperty != "" || sum.NodePropertiesWritten != 0 {
			t.Errorf("a generated graph written back: %+v", sum)
		}
	}
}

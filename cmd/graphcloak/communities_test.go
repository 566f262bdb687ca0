package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

func TestCommunitiesCommand(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "part.csv")
	spec := "sbm:sizes=60x40x30,pin=0.2,pout=0.005"
	out, code := runExperimentCLI(t, "communities", "--graph", spec, "--resolution", "1", "--out", csvPath, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var sum struct {
		SchemaVersion, NodeCount, CommunityCount int
		CommunitySizes                           []int
		Modularity                               float64
		Out                                      string
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	total := 0
	for _, s := range sum.CommunitySizes {
		total += s
	}
	if sum.SchemaVersion != 1 || sum.NodeCount != 130 || total != 130 || len(sum.CommunitySizes) != sum.CommunityCount {
		t.Errorf("summary %+v", sum)
	}
	// The partition file is what locate --communities file:PATH reads, and
	// its modularity recomputed from the graph is the one reported.
	g, planted, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	part, _, err := community.LoadAssignment(csvPath, g)
	if err != nil {
		t.Fatal(err)
	}
	if q := community.Modularity(g, part, 1); math.Abs(q-sum.Modularity) > 1e-12 {
		t.Errorf("modularity of the written partition %.12f, reported %.12f", q, sum.Modularity)
	}
	if nmi := community.NMI(part, planted); nmi < 0.95 {
		t.Errorf("NMI with the planted blocks %.3f", nmi)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"communities", "--graph", "karate", "--communities", "infomap"}, exitBadInput},
		{[]string{"communities", "--graph", "karate", "--resolution", "0"}, exitBadInput},
		{[]string{"communities", "--graph", "karate", "--out", filepath.Join(dir, "missing", "p.csv")}, exitBadInput},
		{[]string{"communities", "--graph", "karate", "--out", dir}, exitBadInput},
		{[]string{"communities"}, exitUsage},
	} {
		if _, code := runExperimentCLI(t, c.args...); code != c.want {
			t.Errorf("%v: exit %d, want %d", c.args, code, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
}

// The memory estimate follows the graph: a graph with twice the nodes and
// edges (two disjoint copies) needs twice the memory beyond the runtime,
// more workers need more, and --estimate prints it without detecting.
func TestCommunitiesEstimate(t *testing.T) {
	isolateConfig(t)
	one, _, err := laplacian.Generate("pa:n=5000,m=4,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "part.csv")
	out, code := runExperimentCLI(t, "communities", "--graph", "pa:n=5000,m=4,seed=2", "--estimate", "--concurrency", "2", "--out", csvPath, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var est struct{ EstimatedBytes int64 }
	if err := json.Unmarshal([]byte(out), &est); err != nil {
		t.Fatal(err)
	}
	if est.EstimatedBytes != community.PeakBytes(one, 0, 2) {
		t.Errorf("--estimate printed %d, want %d", est.EstimatedBytes, community.PeakBytes(one, 0, 2))
	}
	if _, err := os.Stat(csvPath); err == nil {
		t.Error("--estimate wrote the partition")
	}
}

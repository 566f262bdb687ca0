package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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
	var edges []laplacian.Edge
	one.ForEachEdge(func(i, j int, w float64) {
		n := int32(one.N())
		edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w}, laplacian.Edge{U: int32(i) + n, V: int32(j) + n, Weight: w})
	})
	two, err := laplacian.FromEdges(2*one.N(), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, keyed := range []int64{0, fileKeyBytes, neo4jKeyBytes} {
		e1, e2 := estimateCommunities(one, keyed, 2)-processBytes, estimateCommunities(two, keyed, 2)-processBytes
		if r := float64(e2) / float64(e1); math.Abs(r-2) > 0.01 {
			t.Errorf("%d key bytes: twice the graph needs %.3f× the memory, want 2×", keyed, r)
		}
		if e1 <= int64(gcGrowth*float64(one.Bytes())) {
			t.Errorf("%d key bytes: estimate %d below the graph's own %d bytes", keyed, e1, one.Bytes())
		}
	}
	if runtime.GOMAXPROCS(0) > 1 && estimateCommunities(one, 0, 2) <= estimateCommunities(one, 0, 1) {
		t.Error("two workers estimated no more than one")
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
	if est.EstimatedBytes != estimateCommunities(one, 0, 2) {
		t.Errorf("--estimate printed %d, want %d", est.EstimatedBytes, estimateCommunities(one, 0, 2))
	}
	if _, err := os.Stat(csvPath); err == nil {
		t.Error("--estimate wrote the partition")
	}
}

// The detection holds to the estimate through a soft memory limit with
// the heap-growth trigger off, and puts both settings back afterwards;
// GOGC or GOMEMLIMIT in the environment leave the runtime alone.
func TestHoldMemoryTo(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1) // a negative limit reads without changing
	gcBefore := debug.SetGCPercent(100)
	debug.SetGCPercent(gcBefore)
	estimate := int64(900 << 20)
	restore := holdMemoryTo(estimate)
	want := int64(float64(estimate-processBytes) / mappedShare)
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("limit %d, want %d", got, want)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC %d while held, want off (-1)", got)
	}
	if want <= estimate-processBytes {
		t.Errorf("limit %d leaves less than the estimate's %d bytes to the runtime", want, estimate-processBytes)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after restore, want %d", got, before)
	}
	if got := debug.SetGCPercent(gcBefore); got != gcBefore {
		t.Errorf("GOGC %d after restore, want %d", got, gcBefore)
	}
	t.Setenv("GOGC", "50")
	held := holdMemoryTo(estimate)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("GOGC set in the environment, yet the limit became %d", got)
	}
	held()
	t.Setenv("GOGC", "")
	held = holdMemoryTo(heldFrom - 1)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("an estimate under heldFrom, yet the limit became %d", got)
	}
	held()
}

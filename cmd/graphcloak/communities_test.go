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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/stores"
)

// One partition, one name, on every graph kind: `communities --out` names
// each community; plan (JSON), release's dry run (both forecasts), locate
// and the private answer must give every community they name the size
// communities gives that name. gt:dolphins is read in its file's order
// (integer keys "0".."61") and plan simulates on it in key order: before,
// plan and the dry run renumbered communities in the keys' string order
// ("0", "1", "10", …) while communities and locate named them in numeric
// order, so plan's "2" (12 nodes) was communities' "3". The file kind is
// the same graph as an edge list written backwards, the generator kind
// an SBM (scored here on Leiden, as communities scores).
func TestOneNameForACommunityOnEveryGraphKind(t *testing.T) {
	datasets := os.Getenv("GRAPHCLOAK_DATASETS")
	isolateConfig(t)
	dir := t.TempDir()
	specs := []string{"sbm:sizes=30x20x12,pin=0.3,pout=0.02,seed=4"}
	if datasets != "" {
		t.Setenv("GRAPHCLOAK_DATASETS", datasets)
		specs = append(specs, "gt:dolphins", "file:"+backwardsEdgeList(t, dir, "gt:dolphins"))
	} else {
		t.Log("GRAPHCLOAK_DATASETS unset: gt:dolphins and its edge list not run")
	}
	for i, spec := range specs {
		// Every --communities kind a graph without Neo4j takes: the two
		// detectors, and a file (communities' own, read back by name).
		for j, kind := range []string{"leiden", "louvain", "file"} {
			sub := filepath.Join(dir, fmt.Sprint(i, "-", j))
			if err := os.Mkdir(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			checkOneNamePerCommunity(t, sub, spec, kind)
		}
	}
}

// checkOneNamePerCommunity runs every command that names communities on
// spec with the communities kind names (leiden, louvain, or file: the
// file communities --out wrote) and compares each name's size with
// communities'.
func checkOneNamePerCommunity(t *testing.T, dir, spec, kind string) {
	t.Helper()
	parts := filepath.Join(dir, "communities.csv")
	detector := kind
	if kind == "file" {
		detector, kind = "leiden", "file:"+parts
	}
	mustRun(t, "communities", "--graph", spec, "--communities", detector, "--out", parts)
	size := communitySizes(t, parts)
	readings := sourceReadingsOf(t, dir, spec)
	ledger := filepath.Join(dir, "ledger.json")
	mustRun(t, "budget", "--init", "--ledger", ledger, "--epsilon-total", "8", "--delta-total", "1e-5")
	common := []string{"--graph", spec, "--communities", kind, "--tau", "1", "-o", "json"}
	named := map[string][]namedSize{}
	var plan struct {
		Plan struct{ Forecasts []forecastNames }
	}
	decode(t, mustRun(t, append([]string{"plan", "--trials", "20"}, common...)...), &plan)
	named["plan"] = plan.Plan.Forecasts[0].ByCommunity
	var dry struct {
		Forecast struct{ PerNode, PrivateAnswer forecastNames }
	}
	decode(t, mustRun(t, append([]string{"release", "--values", readings, "--ledger", ledger, "--epsilon", "2",
		"--forecast-trials", "20", "--dry-run"}, common...)...), &dry)
	named["release --dry-run (per node)"] = dry.Forecast.PerNode.ByCommunity
	named["release --dry-run (private answer)"] = dry.Forecast.PrivateAnswer.ByCommunity
	rel := filepath.Join(dir, "release.json")
	mustRun(t, append([]string{"release", "--values", readings, "--ledger", ledger, "--epsilon", "2", "--out", rel}, common...)...)
	var loc struct {
		Report struct{ Communities []namedSize }
	}
	decode(t, mustRun(t, append([]string{"locate", "--release", rel}, common...)...), &loc)
	named["locate"] = loc.Report.Communities
	var ans struct {
		Answer struct {
			Posterior struct{ Communities []namedSize }
		}
	}
	decode(t, mustRun(t, append([]string{"locate", "--private-answer", "--values", readings, "--ledger", ledger,
		"--epsilon", "0.5"}, common...)...), &ans)
	named["locate --private-answer"] = ans.Answer.Posterior.Communities
	for cmd, rows := range named {
		if len(rows) != len(size) {
			t.Errorf("%s, %s: %s names %d communities, communities found %d", spec, kind, cmd, len(rows), len(size))
		}
		for _, r := range rows {
			if size[r.name()] != r.Size {
				t.Errorf("%s, %s: %s calls a community of %d nodes %q; communities' %q has %d nodes", spec, kind, cmd, r.Size, r.name(), r.name(), size[r.name()])
			}
		}
	}
}

// namedSize is a community as a command names it: "community" in
// forecasts, "name" in locate's report and the answer's posterior.
type namedSize struct {
	Community, Name string
	Size            int
}

func (n namedSize) name() string { return n.Community + n.Name }

type forecastNames struct{ ByCommunity []namedSize }

func decode(t *testing.T, doc string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(doc), v); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
}

// communitySizes is the size of each community of a node,community file.
func communitySizes(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		_, c, _ := strings.Cut(line, ",")
		size[c]++
	}
	return size
}

// loadGraphForTest is the graph spec names, as the commands load it.
func loadGraphForTest(t *testing.T, spec string) *laplacian.Graph {
	t.Helper()
	l, err := config.Load(config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := stores.Open(context.Background(), l, stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	lg, err := st.LoadGraph(context.Background(), spec, stores.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return lg.Graph
}

// backwardsEdgeList writes spec's graph as an edge list, its rows in the
// reverse of the graph's edge order (so its nodes are read in another
// order).
func backwardsEdgeList(t *testing.T, dir, spec string) string {
	t.Helper()
	g := loadGraphForTest(t, spec)
	var rows []string
	g.ForEachEdge(func(i, j int, _ float64) { rows = append(rows, g.Key(i)+","+g.Key(j)) })
	slices.Reverse(rows)
	path := filepath.Join(dir, "edges.csv")
	if err := os.WriteFile(path, []byte("source,target\n"+strings.Join(rows, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sourceReadingsOf writes readings of a 40-unit source at spec's node of
// highest degree diffused for τ = 1 (no noise: the release adds it).
func sourceReadingsOf(t *testing.T, dir, spec string) string {
	t.Helper()
	g := loadGraphForTest(t, spec)
	md, err := recovery.NewGraphModel(g, 1, recovery.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src := 0
	for i := range g.N() {
		if g.Degree(i) > g.Degree(src) {
			src = i
		}
	}
	f0, y := make([]float64, g.N()), make([]float64, g.N())
	f0[src] = 40
	md.Apply(y, f0)
	var b strings.Builder
	b.WriteString("node,value\n")
	for i, v := range y {
		fmt.Fprintf(&b, "%s,%.9g\n", g.Key(i), v)
	}
	path := filepath.Join(dir, "readings.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

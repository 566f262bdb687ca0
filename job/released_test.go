package job_test

import (
	"math"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"

	. "github.com/graphcloak/graphcloak/job"
)

// rekeyed is g with every node key prefixed: the same nodes and edges
// read under another key property (elementId instead of roomId).
func rekeyed(t *testing.T, g *laplacian.Graph) *laplacian.Graph {
	t.Helper()
	keys := make([]string, g.N())
	var edges []laplacian.Edge
	for i := range keys {
		keys[i] = "element:" + g.Key(i)
		cols, _ := g.Neighbors(i)
		for _, j := range cols {
			if int(j) > i {
				edges = append(edges, laplacian.Edge{U: int32(i), V: j, Weight: g.EdgeWeight(i, int(j))})
			}
		}
	}
	h, err := laplacian.FromEdges(g.N(), keys, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Where unmask and locate --release-run read a release back
// (CheckReleasedValues): the values of release r1 read on
// its own graph are its own (digest and grid as stored); read under
// another node key, or after another command wrote over one of them (on
// the grid or off it), they are refused with the reason.
func TestCheckReleasedValues(t *testing.T) {
	f := newFixture(t)
	if _, err := f.release("r1"); err != nil {
		t.Fatal(err)
	}
	rec := f.run("r1")
	meta := releaseMeta(t, rec)
	values := func() []float64 {
		v := make([]float64, f.graph.N())
		for i := range v {
			v[i] = f.mem.Node(f.graph.Key(i))["v"].(float64)
		}
		return v
	}
	rel, err := CheckReleasedValues(rec, &meta, f.graph, values(), rec.ValuesDigest)
	if err != nil {
		t.Fatal(err)
	}
	_, grid := f.mem.Stored("r1")
	for i := range grid {
		if rel.Grid[i] != grid[i] {
			t.Fatalf("node %s: grid %d read back, %d stored", rel.Keys[i], rel.Grid[i], grid[i])
		}
	}
	step := math.Ldexp(1, -meta.GridExponent)
	for name, c := range map[string]struct {
		graph *laplacian.Graph
		edit  func([]float64)
		want  string
	}{
		"another key property":     {rekeyed(t, f.graph), nil, "not the one release r1 was made on"},
		"overwritten on the grid":  {f.graph, func(v []float64) { v[3] += step }, "digest differs"},
		"overwritten off the grid": {f.graph, func(v []float64) { v[3] += step / 3 }, "not on the release grid"},
	} {
		t.Run(name, func(t *testing.T) {
			v := values()
			if c.edit != nil {
				c.edit(v)
			}
			if _, err := CheckReleasedValues(rec, &meta, c.graph, v, rec.ValuesDigest); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want an error saying %q", err, c.want)
			}
		})
	}
}

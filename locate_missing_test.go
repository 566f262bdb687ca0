package graphcloak

import (
	"context"
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestLocateMissingSensors: a local release in which some sensors did not
// report — the source's own node among them — is located from the rows
// that reported (recovery.Model.Rows): with little noise the heaviest
// recovered node is the source, whose reading was never released. A node
// without a value that the release does not list as missing, or a value
// for a node outside the graph, is refused.
func TestLocateMissingSensors(t *testing.T) {
	g, _ := laplacian.Karate()
	const tau = 0.5
	act, err := expm.NewAction(g, tau, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"1", "34", "17"} {
		f0, y := make([]float64, g.N()), make([]float64, g.N())
		s, _ := g.IndexOf(src)
		f0[s] = 1
		act.Apply(y, f0, 1)
		rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: 1e-4, Tau: tau}}
		for i := 0; i < g.N(); i++ {
			if k := g.Key(i); k == src || i%5 == 2 { // the source and every fifth node are missing
				rel.Meta.Missing = append(rel.Meta.Missing, k)
				continue
			}
			rel.Keys, rel.Values = append(rel.Keys, g.Key(i)), append(rel.Values, y[i])
		}
		rel.Meta.N = len(rel.Keys)
		res, err := Locate(context.Background(), LocateRequest{Graph: g, Released: rel, Tau: tau, Estimator: "massls", Sources: 1, Seed: 1})
		if err != nil {
			t.Fatalf("source %s: %v", src, err)
		}
		best := 0
		for i, n := range res.Nodes {
			if n.Mass > res.Nodes[best].Mass {
				best = i
			}
		}
		if res.Nodes[best].Key != src {
			t.Errorf("source %s (not reported): the heaviest recovered node is %s (mass %v)", src, res.Nodes[best].Key, res.Nodes[best].Mass)
		}
	}
	y := make([]float64, g.N())
	bad := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: 1, Missing: []string{"1"}}}
	for i := 2; i < g.N(); i++ { // node index 1 is neither reported nor listed missing
		bad.Keys, bad.Values = append(bad.Keys, g.Key(i)), append(bad.Values, y[i])
	}
	_, err = Locate(context.Background(), LocateRequest{Graph: g, Released: bad, Tau: tau})
	var ve *ValuesError
	if !errors.As(err, &ve) {
		t.Errorf("a node neither reported nor missing: %v", err)
	}
	bad.Keys, bad.Values = append(bad.Keys, g.Key(1), "not-a-node"), append(bad.Values, 0, 0)
	if _, err = Locate(context.Background(), LocateRequest{Graph: g, Released: bad, Tau: tau}); !errors.As(err, &ve) {
		t.Errorf("a value for a node outside the graph: %v", err)
	}
}

// TestLocateMissingSensorsLarge: on a grid of 5 040 nodes (above the
// 4 096 at which one missing sensor made the dense rows model exceed
// recovery.MaxRowsEntries) with 10% of the sensors missing, the source's
// own among them, locate answers from the restricted operator model, and
// the top community is the source's tile of the grid.
func TestLocateMissingSensorsLarge(t *testing.T) {
	const rows, cols, tile = 70, 72, 12
	g, err := laplacian.Grid(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	const tau = 2
	act, err := expm.NewAction(g, tau, expm.Options{Method: expm.Sparse})
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	part := make([]int, n)
	for i := range part { // tiles of 12×12 nodes (node i at row i/cols, column i%cols)
		part[i] = (i/cols/tile)*(cols/tile) + (i%cols)/tile
	}
	src := (30*cols + 42) // the middle of tile (2, 3)
	f0, y := make([]float64, n), make([]float64, n)
	f0[src] = 1
	act.Apply(y, f0, 1)
	rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: 1e-3, Tau: tau}}
	for i := range n {
		if i == src || i%10 == 3 {
			rel.Meta.Missing = append(rel.Meta.Missing, g.Key(i))
			continue
		}
		rel.Keys, rel.Values = append(rel.Keys, g.Key(i)), append(rel.Values, y[i])
	}
	rel.Meta.N = len(rel.Keys)
	res, err := Locate(context.Background(), LocateRequest{Graph: g, Released: rel, Tau: tau, Partition: part, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	top := res.Report.Communities[0]
	if top.ID != part[src] {
		t.Errorf("top community %d (share %.3g), want the source's tile %d", top.ID, top.Share, part[src])
	}
	if res.NoiseDominated {
		t.Errorf("noise-dominated at σ = 1e-3: %s", res.NoiseReason)
	}
}

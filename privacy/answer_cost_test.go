package privacy

import (
	"context"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// astroLike is a small graph shaped like astro-ph: a connected core of
// communities (a planted partition of 12 blocks of 30 nodes) beside many
// small components that are communities of their own (120 triangles and
// 4-cliques), so that the answer's calibration takes many sparse
// proposals and, with n·k above envelopeOptimizeMaxWork, optimises the
// best of them.
func astroLike(t *testing.T) (*laplacian.Graph, []int) {
	t.Helper()
	core, part, err := laplacian.Generate("sbm:sizes=30" + strings.Repeat("x30", 11) + ",pin=0.3,pout=0.01,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	var edges []laplacian.Edge
	core.ForEachEdge(func(i, j int, w float64) {
		edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w})
	})
	n, k := core.N(), 12
	for c := range 120 {
		size := 3 + c%2
		for i := range size {
			for j := range i {
				edges = append(edges, laplacian.Edge{U: int32(n + i), V: int32(n + j), Weight: 1})
			}
			part = append(part, k)
		}
		n, k = n+size, k+1
	}
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g, part
}

// TestCalibrationWorkCountsTheCalibration holds the calibration's cost
// model to what CalibrateAnswer does, counted: on the astro-ph-shaped
// graph, over plan's five ε, the model's spread work (every proposal's
// sweeps: the start, the sparse ladder, the optimised best) and the caps'
// loss checks are each within 1.5× of the work counted in the run, and so
// is CalibrationSeconds against that work at the model's rates. The model
// of c2bfb18 (a component-sized spread per community at one fitted rate,
// no loss checks and no optimised proposal where n·k is large) priced
// 0.67 s an ε on astro-ph where calibrating took ≈ 5 s.
func TestCalibrationWorkCountsTheCalibration(t *testing.T) {
	g, part := astroLike(t)
	cg, err := NewCommunityGeometry(context.Background(), g, part)
	if err != nil {
		t.Fatal(err)
	}
	saved := envelopeOptimizeMaxWork
	envelopeOptimizeMaxWork = g.N() * cg.K() / 2
	workCount = &workCounter{}
	defer func() { envelopeOptimizeMaxWork, workCount = saved, nil }()
	epsilons := []float64{0.5, 1, 2, 4, 8}
	var model calibrationWork
	for _, eps := range epsilons {
		if _, err := CalibrateAnswer(context.Background(), cg, eps, 1, 0); err != nil {
			t.Fatal(err)
		}
		w := countCalibrationWork(g, part, eps)
		model.Spread += w.Spread
		model.Loss += w.Loss
	}
	spread, loss := float64(workCount.spread.Load()), float64(workCount.loss.Load())
	within := func(what string, model, counted float64) {
		t.Helper()
		if r := model / counted; r < 1/1.5 || r > 1.5 {
			t.Errorf("%s: the model counts %.3g, the calibrations did %.3g (%.2f×)", what, model, counted, r)
		}
	}
	within("spread work", model.Spread, spread)
	within("loss checks", model.Loss, loss)
	priced := (spread*spreadNanos/2 + loss*lossNanos + model.Cells*cellNanos/2) * 1e-9
	within("seconds", CalibrationSeconds(g, part, epsilons...), priced)
}

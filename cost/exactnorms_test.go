package cost

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/graphcloak/graphcloak/laplacian"
)

// exactNormTestGraphs: unweighted (karate, a grid with its corners of
// degree 2, an SBM) and weighted (a path and a star with weights from
// 10⁻² to 10²) graphs, small enough for a dense exponential.
func exactNormTestGraphs(t *testing.T) map[string]*laplacian.Graph {
	t.Helper()
	karate, _ := laplacian.Karate()
	grid, err := laplacian.Grid(6, 7)
	if err != nil {
		t.Fatal(err)
	}
	sbm, _, err := laplacian.SBM([]int{30, 30, 30}, 0.3, 0.02, 4)
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := laplacian.FromEdges(7, nil, []laplacian.Edge{
		{U: 0, V: 1, Weight: 0.01}, {U: 1, V: 2, Weight: 100}, {U: 2, V: 3, Weight: 0.5}, {U: 3, V: 0, Weight: 3},
		{U: 3, V: 4, Weight: 1}, {U: 3, V: 5, Weight: 20}, {U: 3, V: 6, Weight: 0.2},
	}, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*laplacian.Graph{"karate": karate, "grid": grid, "sbm": sbm, "weighted": weighted}
}

// heatDiagonal is (e^{−2τL})_ss for every s, by gonum's dense exponential.
func heatDiagonal(g *laplacian.Graph, tau float64) []float64 {
	var a, e mat.Dense
	a.Scale(-2*tau, g.Laplacian().Dense())
	e.Exp(&a)
	d := make([]float64, g.N())
	for s := range d {
		d[s] = e.At(s, s)
	}
	return d
}

// heatDiagonalBound bounds ‖e^{−τL} e_s‖² = (e^{−2τL})_ss from above
// (the Gauss–Radau rule's sign) at every node of every test graph and τ,
// and is not vacuous: on an unweighted graph at most 1/(d+1) +
// e^{−2τ(d+1)} at a node of degree d (LFR 10⁵'s least, 6, at τ = 1:
// 0.143, which settles σ = 0.54's release).
func TestHeatDiagonalBound(t *testing.T) {
	for name, g := range exactNormTestGraphs(t) {
		for _, tau := range []float64{0.01, 0.3, 1, 5} {
			for s, exact := range heatDiagonal(g, tau) {
				d := g.Degree(s)
				if d == 0 {
					continue
				}
				b := heatDiagonalBound(g, s, tau)
				if !(b >= exact*(1-1e-12)) || !(b < 1) {
					t.Errorf("%s τ=%g node %d: bound %.17g, exact %.17g", name, tau, s, b, exact)
				}
				if top := 1/(d+1) + math.Exp(-2*tau*(d+1)); name != "weighted" && b > top*(1+1e-12) {
					t.Errorf("%s τ=%g node %d of degree %g: bound %g over %g", name, tau, s, d, b, top)
				}
			}
		}
	}
}

// exactNormDraws prices the same exact norms as by the column action
// alone (the model before the bound: σ² ≥ 2/3 or σ² ≥ 2·p̂ of the least
// connected node, p̂ by the action, needs none), for σ² on a fine grid
// around both thresholds, on every test graph and τ.
func TestExactNormDrawsAsTheAction(t *testing.T) {
	for name, g := range exactNormTestGraphs(t) {
		for _, tau := range []float64{0.3, 1, 5} {
			s := leastConnected(g)
			p := largestProbedNorm(g, s, tau)
			bound := heatDiagonalBound(g, s, tau)
			for _, v := range []float64{2 * p, 2 * bound, 2.0 / 3, 1e-6} {
				for _, f := range []float64{0.5, 0.9, 0.999, 1, 1.001, 1.1, 2} {
					sigma := math.Sqrt(v * f)
					want := 0.0
					if sigma*sigma < 2.0/3 && sigma*sigma < 2*p {
						want = 3 * exactNormsBlock
					}
					if got := exactNormDraws(g, tau, 3, sigma); got != want {
						t.Errorf("%s τ=%g σ=%.17g: %g column actions, by the action alone %g", name, tau, sigma, got, want)
					}
				}
			}
		}
	}
}

package laplacian

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSignlessRadiusBound: the Collatz–Wielandt bound is at least ρ(D+W)
// (gonum's dense eigenvalues, the oracle) and at most Merris's bound (its
// first step, x = d), below it by more than rounding on irregular graphs,
// and exact where x = d is an eigenvector (a regular graph: 2d).
func TestSignlessRadiusBound(t *testing.T) {
	for name, g := range testGraphs(t) {
		if g.N() > 400 {
			continue // the dense oracle
		}
		n := g.N()
		Q := mat.NewSymDense(n, nil)
		merris := 0.0
		for i := range n {
			Q.SetSym(i, i, g.Degree(i))
			cols, ws := g.Neighbors(i)
			s := 0.0
			for p, j := range cols {
				w := 1.0
				if ws != nil {
					w = ws[p]
				}
				Q.SetSym(i, int(j), w)
				s += w * g.Degree(int(j))
			}
			if g.Degree(i) > 0 {
				merris = math.Max(merris, g.Degree(i)+s/g.Degree(i))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(Q, false) {
			t.Fatalf("%s: no eigenvalues", name)
		}
		vals := eig.Values(nil)
		rho := vals[len(vals)-1]
		B := g.SignlessRadiusBound()
		if B < rho*(1-1e-12) || B > merris*(1+1e-12) {
			t.Errorf("%s: bound %v outside [ρ(Q) = %v, Merris %v]", name, B, rho, merris)
		}
		if name == "karate" && B > merris*0.99 {
			t.Errorf("karate: bound %v, no tighter than Merris's %v (ρ(Q) = %v)", B, merris, rho)
		}
	}
	grid, _ := Grid(1, 2) // one edge: Q = [[1 1] [1 1]], ρ = 2
	cycle, err := FromEdges(6, nil, []Edge{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {4, 5, 1}, {5, 0, 1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g    *Graph
		want float64
	}{{grid, 2}, {cycle, 4}} {
		if B := c.g.SignlessRadiusBound(); B != c.want {
			t.Errorf("regular graph of %d nodes: bound %v, want %v", c.g.N(), B, c.want)
		}
	}
}

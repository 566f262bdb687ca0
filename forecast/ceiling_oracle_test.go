package forecast

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// mapStarConstraints is starConstraints as it was written before it
// indexed communities (78be03f): a map from community to s's neighbours
// in it. The oracle of its rows.
func mapStarConstraints(g *laplacian.Graph, part []int, epsilon, delta float64, row func(s int, b float64), term func(s, u int, a float64)) {
	rowPtr, col, _ := g.CSR()
	e1, e2 := math.Exp(-epsilon), math.Exp(-2*epsilon)
	seen := map[int]int{}
	for s := 0; s < g.N(); s++ {
		clear(seen)
		seen[part[s]] = -1
		n1, n2 := 0, 0
		nbrs := col[rowPtr[s]:rowPtr[s+1]]
		for _, t := range nbrs {
			if c, ok := seen[part[t]]; !ok {
				seen[part[t]] = 1
				n1++
			} else if c > 0 {
				seen[part[t]] = c + 1
			}
		}
		for _, t := range nbrs {
			if c := seen[part[t]]; c > 0 {
				term(s, int(t), e1/float64(c))
			}
		}
		for _, v := range nbrs {
			for _, u := range col[rowPtr[v]:rowPtr[v+1]] {
				if _, ok := seen[part[u]]; !ok {
					seen[part[u]] = -1
					term(s, int(u), e2)
					n2++
				}
			}
		}
		row(s, 1+delta*(float64(n1)*e1+float64(n2)*(e1+e2)))
	}
}

type starTerm struct {
	s, u int
	a    float64
}

// TestStarConstraintsAsBefore: the star rows, now found by community
// index, are the map's — every term and right-hand side in the same order
// to the bit — on a connected graph and on one whose communities have
// ids that are not 0..k−1.
func TestStarConstraintsAsBefore(t *testing.T) {
	for _, c := range ceilingCases(t) {
		collect := func(cons func(*laplacian.Graph, []int, float64, float64, func(int, float64), func(int, int, float64))) ([]starTerm, []float64) {
			var terms []starTerm
			var rows []float64
			cons(c.g, c.part, 0.7, 1e-3, func(_ int, b float64) { rows = append(rows, b) }, func(s, u int, a float64) { terms = append(terms, starTerm{s, u, a}) })
			return terms, rows
		}
		gotT, gotR := collect(starConstraints)
		wantT, wantR := collect(mapStarConstraints)
		if len(gotT) != len(wantT) || len(gotR) != len(wantR) {
			t.Fatalf("n = %d: %d terms, %d rows; the map's %d, %d", c.g.N(), len(gotT), len(gotR), len(wantT), len(wantR))
		}
		for i := range gotT {
			if gotT[i] != wantT[i] {
				t.Fatalf("term %d: %+v, the map's %+v", i, gotT[i], wantT[i])
			}
		}
		for i := range gotR {
			if gotR[i] != wantR[i] {
				t.Fatalf("row %d: %v, the map's %v", i, gotR[i], wantR[i])
			}
		}
	}
}

// TestGradientsAsBranched: the subgradients, which multiply by a 0/1 byte
// rather than branch on the cover test, are the branching sum's to the
// bit, for the star matrix and for the LP read from the routes.
func TestGradientsAsBranched(t *testing.T) {
	g, part, _ := leidenCase(t, "pa:n=400,m=2,seed=1")
	rng := rand.New(rand.NewPCG(3, 4))
	r := newRoutes(context.Background(), nil, g, part, communityMembers(part), make([]float64, g.N()), 0.5)
	m := explicitRoutedLP([]*routes{r}, 0.5, 1e-3).(*starMatrix)
	cov := make([]float64, g.N())
	for u := range cov {
		cov[u] = 2 * rng.Float64() // about half uncovered
	}
	want := make([]float64, g.N())
	for s := range want {
		v := m.b[s]
		if cov[s] < 1 {
			v--
		}
		for e := m.rowPtr[s]; e < m.rowPtr[s+1]; e++ {
			if cov[m.u[e]] < 1 {
				v -= float64(m.a[e])
			}
		}
		want[s] = v
	}
	for name, lp := range map[string]dualLP{"matrix": m, "routes": newRoutedLP([]*routes{r}, 0.5, 1e-3, 1)} {
		grad := make([]float64, g.N())
		lp.gradient(cov, grad)
		for s := range grad {
			if grad[s] != want[s] {
				t.Fatalf("%s row %d: %v, branching %v", name, s, grad[s], want[s])
			}
		}
	}
}

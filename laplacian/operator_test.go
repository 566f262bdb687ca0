package laplacian

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomWeighted returns a random graph on n nodes with about n·deg/2
// edges (duplicates merged) and weights in (0.1, 3.1), optionally with
// isolated nodes and several components.
func randomWeighted(t testing.TB, n, deg int, weighted bool, seed uint64) *Graph {
	rng := rand.New(rand.NewPCG(seed, 1))
	var edges []Edge
	for range n * deg / 2 {
		u, v := rng.IntN(n), rng.IntN(n)
		if u == v {
			continue
		}
		w := 1.0
		if weighted {
			w = 0.1 + 3*rng.Float64()
		}
		edges = append(edges, Edge{int32(u), int32(v), w})
	}
	g, err := FromEdges(n, nil, edges, Options{Duplicates: DuplicatesSum}) // random pairs repeat: a multigraph
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func randVec(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func testGraphs(t testing.TB) map[string]*Graph {
	kar, _ := Karate()
	grid, _ := Grid(7, 9)
	star, _ := Star(20)
	two, _ := FromEdges(5, nil, []Edge{{0, 1, 2.5}, {3, 4, 0.5}}, Options{}) // 3 components
	return map[string]*Graph{
		"karate":            kar,
		"grid":              grid,
		"star":              star,
		"disconnected":      two,
		"random unit":       randomWeighted(t, 300, 6, false, 1),
		"random weighted":   randomWeighted(t, 300, 6, true, 2),
		"random big sparse": randomWeighted(t, 5000, 4, true, 3), // > parallel threshold, isolated nodes
	}
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

func TestOperatorAgainstDenseAndQuadraticForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for name, g := range testGraphs(t) {
		t.Run(name, func(t *testing.T) {
			n := g.N()
			op := g.Laplacian()
			x := randVec(rng, n)
			y := make([]float64, n)
			op.MulVec(y, x)

			// L·1 = 0 (each row of D − W sums to zero).
			ones := make([]float64, n)
			for i := range ones {
				ones[i] = 1
			}
			l1 := make([]float64, n)
			op.MulVec(l1, ones)
			if m := maxAbsDiff(l1, make([]float64, n)); m > 1e-12*(1+g.MaxDegree()) {
				t.Errorf("‖L·1‖∞ = %g", m)
			}

			// xᵀLx = Σ_{i<j} w_ij (x_i − x_j)², from the edge list.
			var quad, xLx float64
			g.ForEachEdge(func(i, j int, w float64) { quad += w * (x[i] - x[j]) * (x[i] - x[j]) })
			for i := range x {
				xLx += x[i] * y[i]
			}
			if math.Abs(quad-xLx) > 1e-10*math.Max(1, quad) {
				t.Errorf("xᵀLx = %v, Σ w(xi−xj)² = %v", xLx, quad)
			}

			// Dense: symmetric, built independently of the CSR loops.
			if n <= 500 {
				L := op.Dense()
				want := mat.NewVecDense(n, nil)
				want.MulVec(L, mat.NewVecDense(n, x))
				if m := maxAbsDiff(y, want.RawVector().Data); m > 1e-12*(1+g.MaxDegree()) {
					t.Errorf("MulVec vs Dense·x: max diff %g", m)
				}
				// Null space dimension = component count: count eigenvalues ≈ 0.
				var eig mat.EigenSym
				if !eig.Factorize(L, false) {
					t.Fatal("eigendecomposition failed")
				}
				zero := 0
				for _, v := range eig.Values(nil) {
					if v < -1e-9 {
						t.Errorf("negative eigenvalue %g", v)
					}
					if math.Abs(v) < 1e-9 {
						zero++
					}
				}
				if c, _ := g.Components(); zero != c {
					t.Errorf("%d zero eigenvalues, %d components", zero, c)
				}
			}
		})
	}
}

func TestMulBlockMatchesColumnsAndWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for name, g := range testGraphs(t) {
		for _, b := range []int{1, 3, 8, 16} {
			n := g.N()
			X := randVec(rng, n*b)
			Z := randVec(rng, n*b)
			// Reference: per-column MulVec.
			ref := make([]float64, n*b)
			col, out := make([]float64, n), make([]float64, n)
			for c := 0; c < b; c++ {
				for i := 0; i < n; i++ {
					col[i] = X[i*b+c]
				}
				g.Laplacian().WithWorkers(1).MulVec(out, col)
				for i := 0; i < n; i++ {
					ref[i*b+c] = out[i]
				}
			}
			const a, cc, e = -0.7, 1.3, 0.25
			for _, w := range []int{1, 2, 3, 8} {
				op := g.Laplacian().WithWorkers(w)
				got := make([]float64, n*b)
				op.MulBlock(got, X, b)
				if m := maxAbsDiff(got, ref); m > 1e-13*(1+g.MaxDegree()) {
					t.Errorf("%s b=%d workers=%d: MulBlock vs MulVec columns differ by %g", name, b, w, m)
				}
				v := make([]float64, n)
				op.MulVec(v, X[:n])
				v1 := make([]float64, n)
				g.Laplacian().WithWorkers(1).MulVec(v1, X[:n])
				// Same arithmetic per row whatever the split: bit-identical.
				if maxAbsDiff(v, v1) != 0 {
					t.Errorf("%s workers=%d: MulVec depends on worker count", name, w)
				}
				g1 := make([]float64, n*b)
				g.Laplacian().WithWorkers(1).MulBlock(g1, X, b)
				if maxAbsDiff(got, g1) != 0 {
					t.Errorf("%s b=%d workers=%d: MulBlock depends on worker count", name, b, w)
				}
				// Affine: dst = a·LX + c·X + e·Z, with Z aliasing dst.
				dst := append([]float64(nil), Z...)
				op.MulBlockAffine(dst, X, b, a, cc, dst, e)
				for k := range dst {
					want := a*ref[k] + cc*X[k] + e*Z[k]
					if math.Abs(dst[k]-want) > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("%s b=%d w=%d: affine entry %d = %v, want %v", name, b, w, k, dst[k], want)
					}
				}
			}
		}
	}
}

func TestOperatorPanics(t *testing.T) {
	g, _ := Path(4)
	op := g.Laplacian()
	x := make([]float64, 4)
	for name, f := range map[string]func(){
		"short dst":   func() { op.MulVec(make([]float64, 3), x) },
		"aliased":     func() { op.MulVec(x, x) },
		"block shape": func() { op.MulBlock(make([]float64, 8), make([]float64, 7), 2) },
		"block b=0":   func() { op.MulBlock(nil, nil, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

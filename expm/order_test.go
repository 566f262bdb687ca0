package expm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// shuffledGrid is a rows×cols grid whose node numbers are shuffled (its
// own order has no locality; Cuthill–McKee's has), with weights in
// [0.1, 2) when weighted.
func shuffledGrid(tb testing.TB, rows, cols int, weighted bool, seed uint64) *laplacian.Graph {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	n := rows * cols
	label := rng.Perm(n)
	var edges []laplacian.Edge
	add := func(u, v int) {
		w := 1.0
		if weighted {
			w = 0.1 + 1.9*rng.Float64()
		}
		edges = append(edges, laplacian.Edge{U: int32(label[u]), V: int32(label[v]), Weight: w})
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if c+1 < cols {
				add(r*cols+c, r*cols+c+1)
			}
			if r+1 < rows {
				add(r*cols+c, (r+1)*cols+c)
			}
		}
	}
	return mustGraph(tb, n, edges)
}

// withReorderFrom runs f with localOrder reordering graphs of at least
// min nodes.
func withReorderFrom(min int, f func()) {
	saved := reorderMinNodes
	reorderMinNodes = min
	defer func() { reorderMinNodes = saved }()
	f()
}

// TestLocalOrderSameBits: Apply in the kernels' local order gives the
// same bits as in the graph's own order, for every kernel width (one
// column, the 16-column kernel, and 45 = 32 + 8 + 4 + 1), weighted or not,
// at a low and a high degree K, in one goroutine and two.
func TestLocalOrderSameBits(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		g := shuffledGrid(t, 70, 70, weighted, 5)
		n := g.N()
		for _, tau := range []float64{0.05, 3} {
			var own *Chebyshev
			withReorderFrom(math.MaxInt, func() { own = mustChebyshev(t, g, tau) })
			local := mustChebyshev(t, g, tau)
			if own.perm != nil || local.perm == nil {
				t.Fatalf("weighted=%v: own order reordered (%v) or local order not (%v)", weighted, own.perm != nil, local.perm == nil)
			}
			for _, workers := range []int{1, 2} {
				for _, b := range []int{1, 16, 45} {
					x := randomBlock(n, b, uint64(b))
					want, got := make([]float64, n*b), make([]float64, n*b)
					own.WithWorkers(workers).Apply(want, x, b)
					local.WithWorkers(workers).Apply(got, x, b)
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("weighted=%v τ=%g workers=%d b=%d: entry %d is %v in the local order, %v in the own", weighted, tau, workers, b, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestLocalOrderLowersSpread: the order chosen never places neighbours
// farther apart than the graph's own.
func TestLocalOrderLowersSpread(t *testing.T) {
	for _, g := range []*laplacian.Graph{shuffledGrid(t, 70, 70, false, 6), randomGraph(t, 5000, 8, false, 6), pathGraph(t, 5000)} {
		m, perm := localOrder(g)
		inv := make([]int32, g.N())
		for p, v := range perm {
			inv[v] = int32(p)
		}
		own := graphCSR(g)
		switch {
		case perm == nil && m.col[0] != own.col[0]:
			t.Errorf("n=%d: no permutation but another structure", g.N())
		case perm != nil && spread(own, inv) >= spread(own, nil):
			t.Errorf("n=%d: the local order's spread %d is not below the own %d", g.N(), spread(own, inv), spread(own, nil))
		}
	}
}

// TestApplyVsDenseRecurrence: Apply against the Chebyshev sum computed
// with a plain dense matrix (L̃ = (2/B)L − I built entry by entry from
// the edges, T_{k+1} = 2L̃T_k − T_{k−1}, Σ c_k T_k), reordered and not,
// weighted and not, at the widths each kernel runs: the kernels compute
// p_K(L)X to rounding.
func TestApplyVsDenseRecurrence(t *testing.T) {
	graphs := map[string]*laplacian.Graph{
		"grid":     shuffledGrid(t, 12, 15, false, 8),
		"grid-w":   shuffledGrid(t, 12, 15, true, 8),
		"random":   randomGraph(t, 170, 9, false, 8),
		"random-w": randomGraph(t, 170, 9, true, 8),
	}
	for name, g := range graphs {
		for _, min := range []int{1, math.MaxInt} {
			var c *Chebyshev
			withReorderFrom(min, func() { c = mustChebyshev(t, g, 2) })
			for _, b := range []int{1, 8, 16, 19, 32} {
				t.Run(fmt.Sprintf("%s/reordered=%v/b=%d", name, c.perm != nil, b), func(t *testing.T) {
					x := randomBlock(g.N(), b, 4)
					got := make([]float64, len(x))
					c.Apply(got, x, b)
					want := denseChebyshev(g, c, x, b)
					for i := range got {
						if d := math.Abs(got[i] - want[i]); d > 1e-12 {
							t.Fatalf("entry %d (row %d, column %d): %v, dense %v", i, i/b, i%b, got[i], want[i])
						}
					}
				})
			}
		}
	}
}

// denseChebyshev is Σ_k c_k T_k(L̃)X with a dense L̃ (row-major n×b X).
func denseChebyshev(g *laplacian.Graph, c *Chebyshev, x []float64, b int) []float64 {
	n := g.N()
	lt := make([]float64, n*n)
	s := 2 / c.B()
	for i := 0; i < n; i++ {
		lt[i*n+i] = s*g.Degrees()[i] - 1
		cols, ws := g.Neighbors(i)
		for p, j := range cols {
			w := 1.0
			if ws != nil {
				w = ws[p]
			}
			lt[i*n+int(j)] -= s * w
		}
	}
	mul := func(y []float64) []float64 {
		out := make([]float64, n*b)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if a := lt[i*n+j]; a != 0 {
					for k := 0; k < b; k++ {
						out[i*b+k] += a * y[j*b+k]
					}
				}
			}
		}
		return out
	}
	coef := c.Coefficients()
	prev, cur := append([]float64(nil), x...), mul(x)
	sum := make([]float64, n*b)
	for i := range sum {
		sum[i] = coef[0]*prev[i] + coef[1]*cur[i]
	}
	for k := 2; k < len(coef); k++ {
		next := mul(cur)
		for i := range next {
			next[i] = 2*next[i] - prev[i]
			sum[i] += coef[k] * next[i]
		}
		prev, cur = cur, next
	}
	return sum
}

func mustChebyshev(tb testing.TB, g *laplacian.Graph, tau float64) *Chebyshev {
	tb.Helper()
	c, err := NewChebyshev(g.Laplacian(), tau, 1e-10)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// randomBlock is an n×b block of entries uniform in [−0.5, 0.5).
func randomBlock(n, b int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := make([]float64, n*b)
	for i := range x {
		x[i] = rng.Float64() - 0.5
	}
	return x
}

// TestOwnOrderOption: NewAction with OwnOrder keeps the graph's own order
// (no permutation) on a graph the default reorders, with the same degree
// and error bound, and applies to the same bits (TestLocalOrderSameBits'
// property, through the option the estimates use).
func TestOwnOrderOption(t *testing.T) {
	g := shuffledGrid(t, 70, 70, false, 7)
	n := g.N()
	act, err := NewAction(g, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ownAct, err := NewAction(g, 1, Options{OwnOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	local, own := act.(*Chebyshev), ownAct.(*Chebyshev)
	if local.perm == nil || own.perm != nil {
		t.Fatalf("default reordered %v (want true), OwnOrder reordered %v (want false)", local.perm != nil, own.perm != nil)
	}
	if own.Degree() != local.Degree() || own.ErrorBound() != local.ErrorBound() {
		t.Fatalf("OwnOrder: K=%d bound %g, default K=%d bound %g", own.Degree(), own.ErrorBound(), local.Degree(), local.ErrorBound())
	}
	for _, b := range []int{1, 16} {
		x := randomBlock(n, b, uint64(b))
		want, got := make([]float64, n*b), make([]float64, n*b)
		local.Apply(want, x, b)
		own.Apply(got, x, b)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("b=%d: entry %d is %v in the own order, %v reordered", b, i, got[i], want[i])
			}
		}
	}
}

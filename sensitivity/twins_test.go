package sensitivity

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// twinGraph has many false twins: hubs with weighted leaves (weights 1e-3
// to 1e3, several leaves per weight), a K_{3,5}, degree-2 nodes shared by
// two hubs, a bridge between the parts, and separate components.
func twinGraph(t *testing.T, rng *rand.Rand) *laplacian.Graph {
	t.Helper()
	var edges []laplacian.Edge
	add := func(u, v int, w float64) { edges = append(edges, laplacian.Edge{U: int32(u), V: int32(v), Weight: w}) }
	n := 0
	node := func() int { n++; return n - 1 }
	h1, h2 := node(), node()
	add(h1, h2, 1) // bridge-ish link between hubs
	for _, w := range []float64{1e-3, 1, 1e3} {
		for k := 0; k < 2+rng.IntN(4); k++ {
			add(h1, node(), w)
		}
	}
	for k := 0; k < 3; k++ { // degree-2 twins on both hubs
		v := node()
		add(h1, v, 1)
		add(h2, v, 2.5)
	}
	a := []int{node(), node(), node()}
	for k := 0; k < 5; k++ {
		v := node()
		for _, u := range a {
			add(u, v, 1)
		}
	}
	add(a[0], h2, 1)         // bridge
	for c := 0; c < 2; c++ { // small stars as extra components
		hub := node()
		for k := 0; k < 3+c; k++ {
			add(hub, node(), 0.5+float64(c))
		}
	}
	g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFalseTwinsClasses(t *testing.T) {
	g := twinGraph(t, rand.New(rand.NewPCG(3, 4)))
	tw := falseTwins(g)
	classes := 0
	for v := 0; v < g.N(); v++ {
		r := tw.rep[v]
		if r == v {
			classes++
		}
		rc, rw := g.Neighbors(r)
		vc, vw := g.Neighbors(v)
		if len(rc) != len(vc) {
			t.Fatalf("%d and its representative %d have different degrees", v, r)
		}
		for k := range rc {
			if rc[k] != vc[k] || (rw != nil && rw[k] != vw[k]) {
				t.Fatalf("%d and %d are not twins", v, r)
			}
		}
	}
	if classes >= g.N()-5 {
		t.Fatalf("%d classes for %d nodes: twins not found", classes, g.N())
	}
}

// TestSparseTwinsAgainstOracle compares the column scheme (which computes
// one column per twin class) with the Padé oracle and the dense path.
func TestSparseTwinsAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 6; trial++ {
		g := twinGraph(t, rng)
		tau := []float64{0.05, 0.5, 3}[trial%3]
		A := expmOracle(g, tau)
		want := oracleDelta(g, A)
		sp, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: SchemeColumns})
		if err != nil {
			t.Fatal(err)
		}
		d, err := Graph(g, tau, 1, Options{Method: expm.Dense})
		if err != nil {
			t.Fatal(err)
		}
		checkBracket(t, "sparse", sp, want, 1e-12)
		checkBracket(t, "dense", d, want, 1e-12)
		if !sp.Exact {
			t.Errorf("sparse not exact")
		}
	}
}

// TestStatusIsAnytimeBound: on both sparse schemes every reported Δ2 is
// already a proven upper bound (≥ the oracle value), the edges certified
// never decrease, an ETA is never negative, and an exact run ends with
// every edge certified.
func TestStatusIsAnytimeBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := twinGraph(t, rng)
	tau := 0.4
	want := oracleDelta(g, expmOracle(g, tau))
	for _, scheme := range []Scheme{SchemeColumns, SchemeLanczos} {
		var last Interim
		calls := 0
		s, err := Graph(g, tau, 1, Options{Method: expm.Sparse, Scheme: scheme, Status: func(st Interim) {
			calls++
			if st.Delta2 < want*(1-1e-12) {
				t.Errorf("scheme %d: status Δ2 %v below the true value %v", scheme, st.Delta2, want)
			}
			if st.Edges != g.NumEdges() || st.EdgesCertified < last.EdgesCertified || st.ETA < 0 {
				t.Errorf("scheme %d: status %+v after %+v", scheme, st, last)
			}
			last = st
		}})
		if err != nil {
			t.Fatal(err)
		}
		if calls < 2 || !s.Exact || last.EdgesCertified != g.NumEdges() || last.Delta2 < s.Delta2*(1-1e-12) {
			t.Errorf("scheme %d: %d calls, last %+v, result %+v", scheme, calls, last, s)
		}
	}
}

// TestLanczosProgress: the edges certified include the classes whose
// cheap bound is below the running lower bound before any step (most of
// a large graph's edges), but not a class the deadline left with a wide
// bracket; the classes left to refine are the rest.
func TestLanczosProgress(t *testing.T) {
	cl := []edgeClass{
		{size: 3, u: 0.5}, // refined: narrow bracket
		{size: 2, u: 0.4}, // deadline: wide bracket above the floor
		{size: 5, u: 0.3}, // not reached, above the floor
		{size: 7, u: 0.1}, // not reached, below the floor
		{size: 1, u: 0.2}, // refined, pruned below the floor
	}
	lo := []float64{0.6, 0.2, 0, 0, 0.1}
	up := []float64{0.6 * (1 + 1e-9), 0.6, 0, 0, 0.3}
	done := make([]atomic.Bool, len(cl))
	done[0].Store(true)
	done[1].Store(true)
	done[4].Store(true)
	const floor = 0.25
	certified, left := lanczosProgress(cl, lo, up, done, floor)
	if certified != 3+7+1 || left != 1 {
		t.Errorf("certified %d, left %d; want 11 and 1", certified, left)
	}
	// As the floor rises past class 2's cheap bound, it is certified too.
	if certified, left = lanczosProgress(cl, lo, up, done, 0.35); certified != 16 || left != 0 {
		t.Errorf("floor 0.35: certified %d, left %d; want 16 and 0", certified, left)
	}
}

// TestRemainingTime: no guess before a few units are done or when none
// is left; otherwise the time so far scaled by the units left, at least
// a millisecond.
func TestRemainingTime(t *testing.T) {
	cases := []struct {
		spent      time.Duration
		done, left int
		want       time.Duration
	}{
		{10 * time.Second, 7, 100, 0},
		{10 * time.Second, 20, 0, 0},
		{10 * time.Second, 20, 30, 15 * time.Second},
		{time.Microsecond, 1000, 1, time.Millisecond},
	}
	for _, c := range cases {
		if got := remainingTime(c.spent, c.done, c.left); got != c.want {
			t.Errorf("remainingTime(%v, %d, %d) = %v, want %v", c.spent, c.done, c.left, got, c.want)
		}
	}
}

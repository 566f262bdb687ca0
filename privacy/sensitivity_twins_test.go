package privacy

import (
	"math/rand/v2"
	"testing"

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
		sp, err := GraphSensitivity(g, tau, 1, GraphOptions{Method: expm.Sparse})
		if err != nil {
			t.Fatal(err)
		}
		d, err := GraphSensitivity(g, tau, 1, GraphOptions{Method: expm.Dense})
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

// TestStatusIsAnytimeBound: every reported Δ2 is already a proven upper
// bound (≥ the oracle value), and an exact run ends with every edge
// certified.
func TestStatusIsAnytimeBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := twinGraph(t, rng)
	tau := 0.4
	want := oracleDelta(g, expmOracle(g, tau))
	var last SensitivityStatus
	calls := 0
	s, err := GraphSensitivity(g, tau, 1, GraphOptions{Method: expm.Sparse, Status: func(st SensitivityStatus) {
		calls++
		if st.Delta2 < want*(1-1e-12) {
			t.Errorf("status Δ2 %v below the true value %v", st.Delta2, want)
		}
		if st.Edges != g.NumEdges() || st.EdgesCertified < last.EdgesCertified {
			t.Errorf("status %+v after %+v", st, last)
		}
		last = st
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 || !s.Exact || last.EdgesCertified != g.NumEdges() || last.Delta2 < s.Delta2*(1-1e-12) {
		t.Errorf("%d calls, last %+v, result %+v", calls, last, s)
	}
}

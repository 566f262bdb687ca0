package recovery

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

func TestEMDLineClosedForms(t *testing.T) {
	tests := []struct {
		name    string
		p, q    []float64
		spacing float64
		want    float64 // derived by hand
	}{
		{"same point", []float64{0, 1, 0}, []float64{0, 2, 0}, 0.5, 0},
		{"two points", []float64{1, 0, 0, 0}, []float64{0, 0, 0, 3}, 0.25, 0.75},
		{"split mass", []float64{1, 0, 1}, []float64{0, 1, 0}, 1, 1},                 // ½·1 + ½·1
		{"shift half", []float64{1, 1, 0}, []float64{0, 1, 1}, 0.1, 0.1},             // each half moves one cell... total 1 cell
		{"uniform to end", []float64{1, 1, 1, 1}, []float64{0, 0, 0, 1}, 1, 1.5},     // (3+2+1+0)/4
		{"unnormalised scale", []float64{2, 0}, []float64{0, 0.5}, 0.01, 0.01},       // masses normalised
		{"paper grid", []float64{0, 1, 0, 0, 0}, []float64{0, 0, 0, 0, 1}, 0.2, 0.6}, // 3 cells
	}
	for _, tc := range tests {
		got, err := EMDLine(tc.p, tc.q, tc.spacing)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: EMDLine = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEMDErrors(t *testing.T) {
	if _, err := EMDLine([]float64{0, 0}, []float64{1, 0}, 1); !errors.Is(err, ErrZeroMass) {
		t.Errorf("zero mass: got %v", err)
	}
	if _, err := EMDLine([]float64{-1, 2}, []float64{1, 0}, 1); !errors.Is(err, ErrNegativeMass) {
		t.Errorf("negative mass: got %v", err)
	}
	if _, err := EMDLine([]float64{1, 0}, []float64{1, 0}, 0); err == nil {
		t.Error("zero spacing accepted")
	}
	// Two components: mass must balance per component.
	g := mustGraph(t, 4, []laplacian.Edge{{U: 0, V: 1, Weight: 1}, {U: 2, V: 3, Weight: 1}})
	var ue *UnbalancedError
	if _, err := EMDGraph(g, []float64{1, 0, 0, 0}, []float64{0, 0, 1, 0}); !errors.As(err, &ue) {
		t.Errorf("unbalanced components: got %v", err)
	}
	got, err := EMDGraph(g, []float64{1, 0, 1, 0}, []float64{0, 1, 0, 1})
	if err != nil || math.Abs(got-1) > 1e-12 { // ½ moves 1 hop in each component
		t.Errorf("balanced components: got %v, %v; want 1", got, err)
	}
	if _, err := EMDGraph(g, make([]float64, 4), []float64{1, 0, 0, 0}); !errors.Is(err, ErrZeroMass) {
		t.Errorf("zero mass graph: got %v", err)
	}
}

func TestEMDGraphPathPointMasses(t *testing.T) {
	n := 40
	g := mustGraph(t, n, pathEdges(n))
	for _, pair := range [][2]int{{0, 39}, {3, 17}, {20, 20}, {38, 1}} {
		p := make([]float64, n)
		q := make([]float64, n)
		p[pair[0]], q[pair[1]] = 1, 2
		got, err := EMDGraph(g, p, q)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Abs(float64(pair[0] - pair[1]))
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("path %v: EMD = %v, want %v", pair, got, want)
		}
	}
	// On a path EMDGraph equals EMDLine with unit spacing.
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 20; trial++ {
		p, q := randomMass(rng, n, 0.3), randomMass(rng, n, 0.3)
		a, err := EMDGraph(g, p, q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := EMDLine(p, q, 1)
		if math.Abs(a-b) > 1e-9 {
			t.Errorf("path trial %d: graph %v vs line %v", trial, a, b)
		}
	}
}

func randomMass(rng *rand.Rand, n int, density float64) []float64 {
	p := make([]float64, n)
	for i := range p {
		if rng.Float64() < density {
			p[i] = rng.Float64()
		}
	}
	p[rng.IntN(n)] += 0.5
	return p
}

// treeEMD is the closed form on a tree: Σ_edges |net normalised mass in
// the subtree below the edge|.
func treeEMD(n int, edges []laplacian.Edge, p, q []float64) float64 {
	adj := make([][]int, n)
	for _, e := range edges {
		adj[e.U] = append(adj[e.U], int(e.V))
		adj[e.V] = append(adj[e.V], int(e.U))
	}
	sp, sq := 0.0, 0.0
	for i := range p {
		sp += p[i]
		sq += q[i]
	}
	net := make([]float64, n)
	for i := range net {
		net[i] = p[i]/sp - q[i]/sq
	}
	parent := make([]int, n)
	order := []int{0}
	parent[0] = -1
	seen := make([]bool, n)
	seen[0] = true
	for h := 0; h < len(order); h++ {
		for _, v := range adj[order[h]] {
			if !seen[v] {
				seen[v] = true
				parent[v] = order[h]
				order = append(order, v)
			}
		}
	}
	total := 0.0
	for h := len(order) - 1; h > 0; h-- {
		v := order[h]
		total += math.Abs(net[v])
		net[parent[v]] += net[v]
	}
	return total
}

func TestEMDGraphTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for trial := 0; trial < 20; trial++ {
		n := 5 + rng.IntN(200)
		edges := randomEdges(n, 0, rng)
		g := mustGraph(t, n, edges)
		p, q := randomMass(rng, n, 0.2), randomMass(rng, n, 0.2)
		got, err := EMDGraph(g, p, q)
		if err != nil {
			t.Fatal(err)
		}
		want := treeEMD(n, edges, p, q)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("tree n=%d: EMD = %v, closed form %v", n, got, want)
		}
	}
}

// lpEMD is an independent oracle: the Kantorovich transport LP over
// supply×demand pairs with BFS hop distances, solved by gonum's simplex.
func lpEMD(t *testing.T, g *laplacian.Graph, p, q []float64) float64 {
	n := g.N()
	pn, _ := normalise(p, "p")
	qn, _ := normalise(q, "q")
	var S, T []int
	var a, d []float64
	for i := 0; i < n; i++ {
		switch x := pn[i] - qn[i]; {
		case x > 0:
			S, a = append(S, i), append(a, x)
		case x < 0:
			T, d = append(T, i), append(d, -x)
		}
	}
	if len(S) == 0 {
		return 0
	}
	dist := make([][]int, len(S))
	for si, s := range S {
		dist[si] = bfs(g, s)
	}
	nv := len(S) * len(T)
	c := make([]float64, nv)
	for si := range S {
		for ti, tt := range T {
			c[si*len(T)+ti] = float64(dist[si][tt])
		}
	}
	rows := len(S) + len(T) - 1
	A := mat.NewDense(rows, nv, nil)
	b := make([]float64, rows)
	for si := range S {
		for ti := range T {
			A.Set(si, si*len(T)+ti, 1)
		}
		b[si] = a[si]
	}
	for ti := 0; ti < len(T)-1; ti++ {
		for si := range S {
			A.Set(len(S)+ti, si*len(T)+ti, 1)
		}
		b[len(S)+ti] = d[ti]
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-10, nil)
	if err != nil {
		t.Fatalf("lp oracle: %v", err)
	}
	return opt
}

func bfs(g *laplacian.Graph, s int) []int {
	d := make([]int, g.N())
	for i := range d {
		d[i] = -1
	}
	d[s] = 0
	q := []int{s}
	for h := 0; h < len(q); h++ {
		u := q[h]
		c, _ := g.Neighbors(u)
		for _, v := range c {
			if d[v] < 0 {
				d[v] = d[u] + 1
				q = append(q, int(v))
			}
		}
	}
	return d
}

func TestEMDGraphAgainstLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := 0; trial < 25; trial++ {
		n := 6 + rng.IntN(30)
		g := mustGraph(t, n, randomEdges(n, n, rng))
		p, q := randomMass(rng, n, 0.3), randomMass(rng, n, 0.3)
		got, err := EMDGraph(g, p, q)
		if err != nil {
			t.Fatal(err)
		}
		want := lpEMD(t, g, p, q)
		if math.Abs(got-want) > 1e-8*math.Max(1, want) {
			t.Errorf("trial %d n=%d: flow EMD %v, LP %v", trial, n, got, want)
		}
	}
}

func TestEMDGraphMetricAxioms(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for trial := 0; trial < 20; trial++ {
		n := 10 + rng.IntN(300)
		g := mustGraph(t, n, randomEdges(n, 2*n, rng))
		p, q, r := randomMass(rng, n, 0.1), randomMass(rng, n, 0.1), randomMass(rng, n, 0.1)
		pq, _ := EMDGraph(g, p, q)
		qp, _ := EMDGraph(g, q, p)
		qr, _ := EMDGraph(g, q, r)
		pr, _ := EMDGraph(g, p, r)
		pp, _ := EMDGraph(g, p, p)
		if math.Abs(pq-qp) > 1e-9 {
			t.Errorf("asymmetric: %v vs %v", pq, qp)
		}
		if pr > pq+qr+1e-9 {
			t.Errorf("triangle inequality: d(p,r)=%v > %v + %v", pr, pq, qr)
		}
		if pp != 0 || pq <= 0 {
			t.Errorf("identity: d(p,p)=%v, d(p,q)=%v", pp, pq)
		}
	}
}

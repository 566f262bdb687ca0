package community

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// bruteModularity is Q from its definition, summed over all ordered pairs.
func bruteModularity(g *laplacian.Graph, part []int, gamma float64) float64 {
	n := g.N()
	m2 := 0.0
	for i := 0; i < n; i++ {
		m2 += g.Degree(i)
	}
	q := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if part[i] == part[j] {
				q += g.EdgeWeight(i, j) - gamma*g.Degree(i)*g.Degree(j)/m2
			}
		}
	}
	return q / m2
}

// connected reports whether every community of part induces a connected
// subgraph of g (breadth-first search inside the community).
func connected(g *laplacian.Graph, part []int) bool {
	seen := make([]bool, g.N())
	roots := map[int]bool{}
	for s := 0; s < g.N(); s++ {
		if seen[s] {
			continue
		}
		if roots[part[s]] {
			return false // a second piece of a community already visited
		}
		roots[part[s]] = true
		queue := []int{s}
		seen[s] = true
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			cols, _ := g.Neighbors(v)
			for _, u := range cols {
				if !seen[u] && part[u] == part[v] {
					seen[u] = true
					queue = append(queue, int(u))
				}
			}
		}
	}
	return true
}

func gen(t testing.TB, spec string) (*laplacian.Graph, []int) {
	t.Helper()
	g, planted, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g, planted
}

func TestLeidenAgainstOracles(t *testing.T) {
	cases := []struct {
		spec   string
		gamma  float64
		minQ   float64 // a value Leiden must reach (provenance in the comment)
		minNMI float64 // against the planted partition, when there is one
	}{
		// Zachary's karate club: maximum modularity 0.4198 (Brandes et al.,
		// IEEE TKDE 20(2), 2008, by integer programming).
		{"karate", 1, 0.41, 0},
		{"sbm:sizes=40x40x40,pin=0.3,pout=0.01", 1, 0, 0.95},
		{"sbm:sizes=200x150x100x50,pin=0.1,pout=0.002", 1, 0, 0.95},
		{"grid:rows=12,cols=12", 1, 0, 0},
		{"karate", 0.5, 0, 0},
		{"karate", 2, 0, 0},
	}
	for _, c := range cases {
		g, planted := gen(t, c.spec)
		part, err := Leiden(g, LeidenOptions{Resolution: c.gamma, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		q, brute := Modularity(g, part, c.gamma), bruteModularity(g, part, c.gamma)
		if math.Abs(q-brute) > 1e-12 {
			t.Errorf("%s γ=%g: Modularity %.15f, brute force %.15f", c.spec, c.gamma, q, brute)
		}
		if gq := modularity(g, part, c.gamma); math.Abs(q-gq) > 1e-12 {
			t.Errorf("%s γ=%g: Modularity %.15f, gonum's community.Q %.15f", c.spec, c.gamma, q, gq)
		}
		if q < c.minQ {
			t.Errorf("%s γ=%g: Q = %.4f < %.4f", c.spec, c.gamma, q, c.minQ)
		}
		if !connected(g, part) {
			t.Errorf("%s γ=%g: a community is disconnected", c.spec, c.gamma)
		}
		if c.minNMI > 0 {
			if nmi := NMI(part, planted); nmi < c.minNMI {
				t.Errorf("%s: NMI with the planted blocks %.3f < %.2f", c.spec, nmi, c.minNMI)
			}
		}
		// Louvain (gonum, split into connected pieces) is the baseline.
		lv, err := Louvain(g, c.gamma, 7)
		if err != nil {
			t.Fatal(err)
		}
		if ql := Modularity(g, lv, c.gamma); q < ql-0.01 {
			t.Errorf("%s γ=%g: Leiden Q %.4f below Louvain's %.4f", c.spec, c.gamma, q, ql)
		}
		again, _ := Leiden(g, LeidenOptions{Resolution: c.gamma, Seed: 7})
		for i := range part {
			if part[i] != again[i] {
				t.Fatalf("%s: not deterministic for a seed", c.spec)
			}
		}
	}
}

// Resolution limits: γ → 0 joins each connected component into one
// community; a large γ leaves every node alone (each merge costs more
// than its edge weight brings).
func TestLeidenResolutionLimits(t *testing.T) {
	a, _ := gen(t, "sbm:sizes=30x30,pin=0.3,pout=0")
	part, err := Leiden(a, LeidenOptions{Resolution: 1e-6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	comps, label := a.Components()
	if k := maxLabel(part) + 1; k != comps {
		t.Errorf("γ→0: %d communities for %d components", k, comps)
	}
	for i := range part {
		for j := range part {
			if (label[i] == label[j]) != (part[i] == part[j]) {
				t.Fatalf("γ→0: nodes %d, %d: communities do not match components", i, j)
			}
		}
	}
	part, _ = Leiden(a, LeidenOptions{Resolution: 1e4, Seed: 1})
	if k := maxLabel(part) + 1; k != a.N() {
		t.Errorf("γ = 1e4: %d communities, want %d singletons", k, a.N())
	}
	if _, err := Leiden(a, LeidenOptions{Resolution: -1}); err == nil {
		t.Error("negative resolution accepted")
	}
	empty, err := laplacian.FromEdges(5, nil, nil, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if part, _ := Leiden(empty, LeidenOptions{}); maxLabel(part) != 4 {
		t.Errorf("no edges: %v, want singletons", part)
	}
}

func maxLabel(part []int) int {
	m := -1
	for _, c := range part {
		m = max(m, c)
	}
	return m
}

// benchGraphs are the graphs of the benchmarks: about 10⁶ edges each.
var benchGraphs = []string{
	"pa:n=200000,m=5,seed=1", // 2·10⁵ nodes, 10⁶ edges, weak structure
	"sbm:sizes=2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000x2000,pin=0.008,pout=0.00004", // 10⁵ nodes in 50 blocks, ~10⁶ edges
}

// BenchmarkLeiden reports edges/s per core (the workers are GOMAXPROCS)
// and Q.
func BenchmarkLeiden(b *testing.B) {
	for _, spec := range benchGraphs {
		g, _ := gen(b, spec)
		b.Run(spec[:min(len(spec), 24)], func(b *testing.B) {
			var q float64
			for i := 0; i < b.N; i++ {
				part, err := Leiden(g, LeidenOptions{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				q = Modularity(g, part, 1)
			}
			b.ReportMetric(q, "Q")
			perCore := float64(g.NumEdges()) * float64(b.N) / b.Elapsed().Seconds() / float64(runtime.GOMAXPROCS(0))
			b.ReportMetric(perCore/1e6, "Medges/s/core")
		})
	}
}

// BenchmarkUpdate updates the partition after 0.1% of the edges changed
// (removed, and as many added at random); compare its time with
// BenchmarkLeiden's on the same graph. It reports Q and the relative gap
// to a fresh run on the changed graph.
func BenchmarkUpdate(b *testing.B) {
	for _, spec := range benchGraphs {
		g0, _ := gen(b, spec)
		p0, _ := Leiden(g0, LeidenOptions{Seed: 1})
		g1 := perturb(b, g0, 0.001, 2)
		prev, changed := Carry(g0, p0, g1)
		fresh, _ := Leiden(g1, LeidenOptions{Seed: 1})
		qf := Modularity(g1, fresh, 1)
		b.Run(spec[:min(len(spec), 24)], func(b *testing.B) {
			var q float64
			for i := 0; i < b.N; i++ {
				part, err := Update(g1, prev, changed, LeidenOptions{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				q = Modularity(g1, part, 1)
			}
			b.ReportMetric(q, "Q")
			b.ReportMetric(100*(qf-q)/qf, "%belowFresh")
			b.ReportMetric(float64(len(changed)), "changedNodes")
		})
	}
}

// The partition must be the same, byte for byte, whatever the number of
// workers: the graphs are big enough (2|E| ≥ sequentialLinks) for local
// moving to decide chunks in parallel, and GOMAXPROCS is raised so eight
// workers really run.
func TestLeidenSameForEveryConcurrency(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for _, spec := range []string{
		"pa:n=40000,m=4,seed=3",
		"sbm:sizes=8000x8000x8000x8000,pin=0.001,pout=0.00005",
	} {
		g, _ := gen(t, spec)
		if 2*g.NumEdges() < sequentialLinks {
			t.Fatalf("%s: %d links, too few for the parallel path", spec, 2*g.NumEdges())
		}
		var want []byte
		for _, c := range []int{1, 2, 8} {
			part, err := Leiden(g, LeidenOptions{Seed: 11, Concurrency: c})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 0, 4*len(part))
			for _, x := range part {
				got = binary.LittleEndian.AppendUint32(got, uint32(x))
			}
			if want == nil {
				want = got
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: concurrency %d gives another partition than concurrency 1", spec, c)
			}
		}
	}
}

// The same graph read in another node order (an edge list reordered, or
// Neo4j's order) gets the same partition, community by community and label
// by label: Leiden runs on the nodes in key order.
func TestLeidenIndependentOfNodeOrder(t *testing.T) {
	g0, _, err := laplacian.Generate("sbm:sizes=30x30x30,pin=0.3,pout=0.03,seed=5")
	if err != nil {
		t.Fatal(err)
	}
	n := g0.N()
	build := func(order []int) *laplacian.Graph {
		idx := make([]int, n) // original node → index in this graph
		keys := make([]string, n)
		for p, v := range order {
			idx[v] = p
			keys[p] = fmt.Sprintf("room-%03d", (v*37)%n) // keys whose order is neither
		}
		var edges []laplacian.Edge
		g0.ForEachEdge(func(i, j int, w float64) {
			edges = append(edges, laplacian.Edge{U: int32(idx[j]), V: int32(idx[i]), Weight: w})
		})
		g, err := laplacian.FromEdges(n, keys, edges, laplacian.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	forward, backward := make([]int, n), make([]int, n)
	for i := range forward {
		forward[i], backward[i] = i, n-1-i
	}
	rng := rand.New(rand.NewPCG(3, 3))
	shuffled := rng.Perm(n)
	byKey := func(g *laplacian.Graph) map[string]int { return leidenByKey(t, g, 7) }
	want := byKey(build(forward))
	for name, order := range map[string][]int{"reversed": backward, "shuffled": shuffled} {
		if got := byKey(build(order)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s node order: another partition", name)
		}
	}
}

// A generator's graph (its keys its indices), the same graph in byte
// order of its keys (laplacian.SortedByKey, as plan and audit put a graph)
// and an edge list naming the nodes by the same integers in a shuffled
// order get one partition, label by label: integer keys are ordered as
// numbers. Byte order ("10" before "2") gave the power grid 40 communities
// in plan and 41 in locate and communities.
func TestLeidenOneOrderForIntegerKeys(t *testing.T) {
	g0, _, err := laplacian.Generate("sbm:sizes=40x40x40,pin=0.2,pout=0.02,seed=9")
	if err != nil {
		t.Fatal(err)
	}
	n := g0.N()
	byKey := func(g *laplacian.Graph) map[string]int { return leidenByKey(t, g, 1) }
	want := byKey(g0)
	sorted, _, err := laplacian.SortedByKey(g0)
	if err != nil {
		t.Fatal(err)
	}
	if sorted.Key(2) == "2" {
		t.Fatal("SortedByKey kept index order: the test needs keys whose byte order is not their numeric order")
	}
	order := rand.New(rand.NewPCG(4, 4)).Perm(n)
	idx := make([]int, n)
	keys := make([]string, n)
	for p, v := range order {
		idx[v], keys[p] = p, fmt.Sprint(v)
	}
	var edges []laplacian.Edge
	g0.ForEachEdge(func(i, j int, w float64) {
		edges = append(edges, laplacian.Edge{U: int32(idx[i]), V: int32(idx[j]), Weight: w})
	})
	shuffled, err := laplacian.FromEdges(n, keys, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*laplacian.Graph{"in byte order of its keys": sorted, "shuffled, integer keys": shuffled} {
		if got := byKey(g); !reflect.DeepEqual(got, want) {
			t.Errorf("the generator's graph %s: another partition than the generator's", name)
		}
	}
}

// leidenByKey is Leiden's partition of g (seeded by seed) by node key.
func leidenByKey(t *testing.T, g *laplacian.Graph, seed uint64) map[string]int {
	t.Helper()
	part, err := Leiden(g, LeidenOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i, c := range part {
		out[g.Key(i)] = c
	}
	return out
}

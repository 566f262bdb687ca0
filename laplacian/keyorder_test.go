package laplacian

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// sortedByKeyReference is SortedByKey as it was built before its edges
// were counting-sorted: the keys and every edge by general sorts.
func sortedByKeyReference(g *Graph) (*Graph, []int) {
	n, keys := g.N(), g.Keys()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	perm, sorted := make([]int, n), make([]string, n)
	for c, i := range order {
		perm[i], sorted[c] = c, keys[i]
	}
	var edges []Edge
	g.ForEachEdge(func(i, j int, w float64) {
		u, v := min(perm[i], perm[j]), max(perm[i], perm[j])
		edges = append(edges, Edge{U: int32(u), V: int32(v), Weight: w})
	})
	sort.Slice(edges, func(a, b int) bool {
		return edges[a].U < edges[b].U || edges[a].U == edges[b].U && edges[a].V < edges[b].V
	})
	cg, err := FromEdges(n, sorted, edges, Options{})
	if err != nil {
		panic(err)
	}
	return cg, perm
}

// TestSortedByKeyMatchesReference checks SortedByKey against the general
// sorts it replaced, bit for bit (keys, permutation, rows, weights,
// degrees, fingerprint): on weighted and unweighted multigraphs with
// decimal keys (whose byte order is not their index order), with shuffled
// custom keys, and with isolated nodes.
func TestSortedByKeyMatchesReference(t *testing.T) {
	for seed := range uint64(6) {
		g := randomWeighted(t, 300+int(seed)*97, 3+int(seed), seed%2 == 0, seed)
		graphs := map[string]*Graph{"decimal": g}
		keys := slices.Clone(g.Keys())
		rand.New(rand.NewPCG(seed, 9)).Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
		var edges []Edge
		g.ForEachEdge(func(i, j int, w float64) { edges = append(edges, Edge{int32(i), int32(j), w}) })
		custom, err := FromEdges(0, keys, edges, Options{})
		if err != nil {
			t.Fatal(err)
		}
		graphs["shuffled"] = custom
		for name, g := range graphs {
			t.Run(fmt.Sprintf("%s-%d", name, seed), func(t *testing.T) {
				got, perm, err := SortedByKey(g)
				if err != nil {
					t.Fatal(err)
				}
				want, wantPerm := sortedByKeyReference(g)
				if !slices.Equal(perm, wantPerm) || !slices.Equal(got.Keys(), want.Keys()) {
					t.Fatal("the key order differs from the reference's")
				}
				if !slices.Equal(got.rowPtr, want.rowPtr) || !slices.Equal(got.col, want.col) || !sameBits(got.weight, want.weight) || !sameBits(got.degree, want.degree) {
					t.Fatal("the rows differ from the reference's")
				}
				if got.Fingerprint() != want.Fingerprint() || got.NumEdges() != g.NumEdges() {
					t.Fatalf("fingerprint %v, reference %v; %d edges of %d", got.Fingerprint(), want.Fingerprint(), got.NumEdges(), g.NumEdges())
				}
			})
		}
	}
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// BenchmarkSortedByKey puts a preferential-attachment graph of 4·10⁴
// nodes (e-mail Enron's size) in key order, as plan and audit do.
func BenchmarkSortedByKey(b *testing.B) {
	g, err := PreferentialAttachment(40000, 5, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := SortedByKey(g); err != nil {
			b.Fatal(err)
		}
	}
}

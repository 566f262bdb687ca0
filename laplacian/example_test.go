package laplacian_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/graph/path"
)

func ExampleFromEdges() {
	// A weighted triangle plus a separate edge: two components.
	keys := []string{"a", "b", "c", "d", "e"}
	edges := []laplacian.Edge{{U: 0, V: 1, Weight: 2}, {U: 1, V: 2, Weight: 1}, {U: 2, V: 0, Weight: 1}, {U: 3, V: 4, Weight: 1}}
	g, err := laplacian.FromEdges(0, keys, edges, laplacian.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	count, label := g.Components()
	fmt.Println(g.N(), "nodes,", g.NumEdges(), "edges,", count, "components", label)
	fmt.Println("degrees", g.Degrees())

	// L x for x = e_a: column a of L = D − W.
	x := []float64{1, 0, 0, 0, 0}
	y := make([]float64, 5)
	g.Laplacian().MulVec(y, x)
	fmt.Println("L e_a =", y)

	_, err = laplacian.FromEdges(0, keys, []laplacian.Edge{{U: 0, V: 1, Weight: -1}}, laplacian.Options{})
	fmt.Println(err)
	// Output:
	// 5 nodes, 4 edges, 2 components [0 0 0 1 1]
	// degrees [3 3 2 1 1]
	// L e_a = [3 -2 -1 0 0]
	// laplacian: weight must be positive and finite: edge (a, b) weight -1
}

func ExampleGenerate() {
	g, blocks, err := laplacian.Generate("sbm:sizes=3x2,pin=1,pout=0")
	if err != nil {
		fmt.Println(err)
		return
	}
	count, _ := g.Components()
	fmt.Println(g.N(), g.NumEdges(), count, blocks)

	spec, _ := laplacian.ParseSpec(" GRID: cols=4, rows=3")
	fmt.Println(spec)

	_, _, err = laplacian.Generate("sbm:sizes=250x0,pin=0.05,pout=0.001")
	fmt.Println(err)
	// Output:
	// 5 4 2 [0 0 0 1 1]
	// grid:rows=3,cols=4
	// laplacian: graph spec "sbm:sizes=250x0,pin=0.05,pout=0.001": parameter sizes: bad value: "250x0": each block size must be a positive integer (e.g. 250x250)
}

func ExampleReadCSV() {
	// A directed export of an undirected graph names alice–bob both ways:
	// one edge of weight 2, not 4.
	in := `source,target,weight
# a comment
alice,bob,2
bob,carol,0.5
bob,alice,2
`
	g, err := laplacian.ReadCSV(strings.NewReader(in), laplacian.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Keys(), g.NumEdges(), "edges,", g.DuplicatesMerged(), "merged, w(alice,bob) =", g.EdgeWeight(0, 1))
	fmt.Println(g.Merges())

	// Two doors between two rooms: weights that disagree are refused
	// unless the rule says they add.
	doors := "a,b,1\nb,a,2\n"
	_, err = laplacian.ReadCSV(strings.NewReader(doors), laplacian.Options{})
	fmt.Println(errors.Is(err, laplacian.ErrConflictingDuplicate))
	g, _ = laplacian.ReadCSV(strings.NewReader(doors), laplacian.Options{Duplicates: laplacian.DuplicatesSum})
	fmt.Println("sum: w(a,b) =", g.EdgeWeight(0, 1))

	// A self-loop does not change L = D − W: skipped and counted.
	g, _ = laplacian.ReadCSV(strings.NewReader("a,b\nb,b\n"), laplacian.Options{})
	fmt.Println(g.N(), g.NumEdges(), g.Merges().SelfLoopsText())
	// Output:
	// [alice bob carol] 2 edges, 1 merged, w(alice,bob) = 2
	// 3 rows, 1 pair listed twice merged as one edge: 2 edges
	// true
	// sum: w(a,b) = 3
	// 2 1 1 self-loop skipped, (b, b): a self-loop does not change the Laplacian L = D − W
}

func ExampleKarate() {
	g, faction := laplacian.Karate()
	i, _ := g.IndexOf("34")
	fmt.Println(g.N(), g.NumEdges(), g.Degree(i), faction[0], faction[i])

	// gonum algorithms run on the graph directly.
	sp := path.DijkstraFrom(g.Node(0), g)
	fmt.Println("hops from 1 to 34:", sp.WeightTo(int64(i)))
	// Output:
	// 34 78 17 0 1
	// hops from 1 to 34: 2
}

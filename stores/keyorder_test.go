package stores

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// The same graph read in two orders is the same graph in key order, its
// partition carried along with its nodes.
func TestInKeyOrder(t *testing.T) {
	read := func(csv string) *Graph {
		g, err := laplacian.ReadCSV(strings.NewReader(csv), laplacian.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// part is by key: a 0, b 0, c 1
		byKey := map[string]int{"a": 0, "b": 0, "c": 1}
		p := make([]int, g.N())
		for i := range p {
			p[i] = byKey[g.Key(i)]
		}
		lg, err := (&Graph{Graph: g, Partition: p}).InKeyOrder()
		if err != nil {
			t.Fatal(err)
		}
		return lg
	}
	x, y := read("a,b\nb,c\n"), read("c,b\nb,a\n")
	for i := 0; i < 3; i++ {
		if x.Graph.Key(i) != y.Graph.Key(i) || x.Partition[i] != y.Partition[i] {
			t.Errorf("node %d: %s in %d and %s in %d", i, x.Graph.Key(i), x.Partition[i], y.Graph.Key(i), y.Partition[i])
		}
	}
	for i := 0; i < 3; i++ {
		if want := map[string]int{"a": 0, "b": 0, "c": 1}[x.Graph.Key(i)]; x.Partition[i] != want {
			t.Errorf("%s's community %d after reordering, want %d", x.Graph.Key(i), x.Partition[i], want)
		}
	}
}

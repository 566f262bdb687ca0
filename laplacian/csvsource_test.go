package laplacian

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// An edge list whose first keys repeat row after row (sorted by source,
// as generators write it) and one whose rows are shuffled read to the
// nodes numbered by first appearance and the edges listed, as an
// independent reading of the rows says: non-decimal keys ("n12"), a
// weighted column, duplicate rows summed and a source that comes back
// after others.
func TestReadCSVRepeatedSources(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var rows [][3]string
	for u := range 400 {
		for range 1 + rng.IntN(6) {
			v := rng.IntN(400)
			if v == u {
				continue
			}
			key := func(i int) string { return fmt.Sprintf("n%d", i) }
			rows = append(rows, [3]string{key(u), key(v), fmt.Sprint(1 + rng.IntN(5))})
		}
	}
	rows = append(rows, [3]string{"n1", "n399", "2"}) // n1 again, far from its run
	shuffled := slices.Clone(rows)
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	for name, rows := range map[string][][3]string{"sorted": rows, "shuffled": shuffled} {
		var sb strings.Builder
		sb.WriteString("source,target,weight\n")
		index, weight := map[string]int{}, map[[2]int]float64{}
		var keys []string
		id := func(k string) int {
			if i, ok := index[k]; ok {
				return i
			}
			index[k] = len(keys)
			keys = append(keys, k)
			return index[k]
		}
		for _, r := range rows {
			fmt.Fprintf(&sb, "%s,%s,%s\n", r[0], r[1], r[2])
			u, v := id(r[0]), id(r[1])
			var w float64
			fmt.Sscan(r[2], &w)
			weight[[2]int{min(u, v), max(u, v)}] += w
		}
		g, err := ReadCSV(strings.NewReader(sb.String()), Options{Duplicates: DuplicatesSum})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.Keys(), keys) || g.NumEdges() != len(weight) {
			t.Fatalf("%s: %d keys, %d edges; the rows say %d and %d", name, len(g.Keys()), g.NumEdges(), len(keys), len(weight))
		}
		for e, w := range weight {
			if got := g.EdgeWeight(e[0], e[1]); got != w {
				t.Fatalf("%s: edge %s–%s weighs %g, the rows say %g", name, keys[e[0]], keys[e[1]], got, w)
			}
		}
	}
}

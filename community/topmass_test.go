package community

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestTopMassNodesIsTheStableSort: the heap TopMassNodes pops from gives
// the prefix the stable sort of the positive weights (heaviest first, equal
// weights by index) gives, on random weights with ties, zeros and negative
// entries, for several fractions.
func TestTopMassNodesIsTheStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		n := 1 + rng.IntN(300)
		w := make([]float64, n)
		for i := range w {
			w[i] = float64(rng.IntN(1+trial%25)) - 2 // ties, zeros, negatives
		}
		for _, frac := range []float64{0.1, 0.5, 0.9, 1} {
			var idx []int
			total := 0.0
			for i, v := range w {
				if v > 0 {
					idx = append(idx, i)
					total += v
				}
			}
			want := []int{}
			if total > 0 {
				sort.SliceStable(idx, func(a, b int) bool { return w[idx[a]] > w[idx[b]] })
				sum := 0.0
				want = idx
				for k, i := range idx {
					if sum += w[i]; sum >= frac*total*(1-1e-12) {
						want = idx[:k+1]
						break
					}
				}
			}
			if got := TopMassNodes(w, frac); !slices.Equal(got, want) {
				t.Fatalf("n = %d, frac %g: %v, the stable sort %v", n, frac, got, want)
			}
		}
	}
}

package community

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// bruteTop90 returns the smallest cardinality of a node subset holding at
// least 90% of the positive mass, by enumerating all subsets.
func bruteTop90(w []float64) int {
	total := 0.0
	for _, x := range w {
		total += max(x, 0)
	}
	best := len(w) + 1
	for mask := uint(0); mask < 1<<len(w); mask++ {
		s := 0.0
		for i := range w {
			if mask&(1<<i) != 0 {
				s += max(w[i], 0)
			}
		}
		if s >= Top90Fraction*total*(1-1e-12) {
			best = min(best, bits.OnesCount(mask))
		}
	}
	return best
}

func TestRankInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(11)
		g, err := laplacian.Path(n)
		if err != nil {
			t.Fatal(err)
		}
		k := 1 + rng.IntN(n)
		part := make([]int, n)
		for i := range part {
			part[i] = rng.IntN(k)
		}
		part, k = Canonical(nil, part)
		w := make([]float64, n)
		for i := range w {
			switch rng.IntN(4) {
			case 0: // zero
			case 1:
				w[i] = -1e-12 * rng.Float64() // solver round-off
			default:
				w[i] = rng.ExpFloat64()
			}
		}
		w[rng.IntN(n)] = 1 // at least one positive
		rep := Rank(g, part, nil, w, false)
		if rep.NoSource || len(rep.Communities) != k {
			t.Fatalf("trial %d: NoSource=%v, %d communities, want %d", trial, rep.NoSource, len(rep.Communities), k)
		}
		sum := 0.0
		sizes := 0
		for r, c := range rep.Communities {
			sum += c.Share
			sizes += c.Size
			if c.Rank != r+1 {
				t.Errorf("trial %d: rank %d at position %d", trial, c.Rank, r)
			}
			if r > 0 && c.Share > rep.Communities[r-1].Share {
				t.Errorf("trial %d: shares not sorted", trial)
			}
			// Share is the community's own mass over the total.
			own := 0.0
			for i := range part {
				if part[i] == c.ID {
					own += max(w[i], 0)
				}
			}
			if math.Abs(own/rep.TotalMass-c.Share) > 1e-12 {
				t.Errorf("trial %d: community %d share %v, want %v", trial, c.ID, c.Share, own/rep.TotalMass)
			}
		}
		if math.Abs(sum-1) > 1e-12 || sizes != n {
			t.Errorf("trial %d: shares sum to %v, sizes to %d", trial, sum, sizes)
		}
		// Top90: holds ≥ 90% and is minimal (brute force).
		held := 0.0
		for _, i := range rep.Top90Nodes {
			held += w[i]
		}
		if held < Top90Fraction*rep.TotalMass*(1-1e-12) {
			t.Errorf("trial %d: top-90 set holds %v of %v", trial, held, rep.TotalMass)
		}
		if want := bruteTop90(w); len(rep.Top90Nodes) != want {
			t.Errorf("trial %d: top-90 set has %d nodes, minimum is %d (w=%v)", trial, len(rep.Top90Nodes), want, w)
		}
	}
}

func TestRankNoSource(t *testing.T) {
	g, _ := laplacian.Karate()
	part := make([]int, g.N())
	zero := make([]float64, g.N())
	for _, c := range []struct {
		name     string
		w        []float64
		noSource bool
	}{
		{"zero mass", zero, false},
		{"estimator says none", append([]float64{1}, zero[1:]...), true},
	} {
		rep := Rank(g, part, nil, c.w, c.noSource)
		if !rep.NoSource || rep.Reason == "" || len(rep.Communities) != 0 || len(rep.Top90Nodes) != 0 {
			t.Errorf("%s: %+v", c.name, rep)
		}
	}
}

func TestRankNamesAndTies(t *testing.T) {
	g, _ := laplacian.Path(4)
	rep := Rank(g, []int{0, 0, 1, 1}, []string{"left", "right"}, []float64{0.25, 0.25, 0.5, 0}, false)
	// Equal shares: the smaller id ranks first.
	if rep.Communities[0].Name != "left" || rep.Communities[1].Name != "right" {
		t.Errorf("tie order: %+v", rep.Communities)
	}
	if !slices.Equal(rep.Top90Nodes, []int{2, 0, 1}) {
		t.Errorf("Top90Nodes = %v, want [2 0 1]", rep.Top90Nodes)
	}
}

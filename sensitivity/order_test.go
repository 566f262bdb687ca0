package sensitivity

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// sortedOrder is lanczosOrder by its definition: stable sorts of every
// class by degree ratio, then bridge hint, then heat trap, each keeping
// the first lanczosSeeds — the oracle for firstK's one-pass selections.
func sortedOrder(cl []edgeClass) (order []int, seeds int) {
	sort.Slice(cl, func(a, b int) bool {
		if cl[a].u != cl[b].u {
			return cl[a].u > cl[b].u
		}
		return cl[a].hint > cl[b].hint
	})
	byHint := make([]int, len(cl))
	for k := range byHint {
		byHint[k] = k
	}
	sort.SliceStable(byHint, func(a, b int) bool { return cl[byHint[a]].hint > cl[byHint[b]].hint })
	order = append(order, byHint[:min(lanczosSeeds, len(byHint))]...)
	sort.SliceStable(byHint, func(a, b int) bool { return cl[byHint[a]].slow > cl[byHint[b]].slow })
	seed := make(map[int]bool, 2*lanczosSeeds)
	for _, c := range order {
		seed[c] = true
	}
	for _, c := range byHint[:min(lanczosSeeds, len(byHint))] {
		if !seed[c] && cl[c].slow > 0 {
			seed[c] = true
			order = append(order, c)
		}
	}
	sort.SliceStable(byHint, func(a, b int) bool { return cl[byHint[a]].trap > cl[byHint[b]].trap })
	for _, c := range byHint[:min(lanczosSeeds, len(byHint))] {
		if !seed[c] {
			seed[c] = true
			order = append(order, c)
		}
	}
	seeds = len(order)
	for k := range cl {
		if !seed[k] {
			order = append(order, k)
		}
	}
	return order, seeds
}

// TestLanczosOrderAsStableSorts: on classes whose keys tie often,
// lanczosOrder gives sortedOrder's seeds, order and sorted classes.
func TestLanczosOrderAsStableSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n := r.IntN(60)
		cl := make([]edgeClass, n)
		for k := range cl {
			cl[k] = edgeClass{i: k, u: float64(r.IntN(3)), hint: float64(r.IntN(3)), slow: float64(r.IntN(3)), trap: float64(r.IntN(3))}
		}
		a, b := slices.Clone(cl), slices.Clone(cl)
		oa, sa := sortedOrder(a)
		ob, sb := lanczosOrder(b) // sort.Slice puts equal inputs in equal orders
		if sa != sb || !slices.Equal(oa, ob) || !slices.Equal(a, b) {
			t.Fatalf("trial %d: %v %d vs %v %d", trial, oa, sa, ob, sb)
		}
	}
}

// sortedPicks is pilotPicks by its definition: per key a stable sort of
// every candidate, taking the first pilotSlots/4 not yet taken.
func sortedPicks(cand []edgeClass, nFirst int) []int {
	var pick []int
	picked := make(map[int]bool)
	edges := make(map[[2]int]bool)
	for k, c := range cand[:nFirst] {
		picked[k], edges[[2]int{c.i, c.j}] = true, true
		pick = append(pick, k)
	}
	for k, c := range cand[nFirst:] {
		if edges[[2]int{c.i, c.j}] {
			picked[nFirst+k] = true
		}
	}
	idx := make([]int, len(cand))
	for _, key := range []func(c edgeClass) float64{
		func(c edgeClass) float64 { return c.u },
		func(c edgeClass) float64 { return c.lo },
		func(c edgeClass) float64 { return c.hint },
		func(c edgeClass) float64 { return c.slow },
	} {
		for k := range idx {
			idx[k] = k
		}
		sort.SliceStable(idx, func(a, b int) bool { return key(cand[idx[a]]) > key(cand[idx[b]]) })
		for k, got := 0, 0; k < len(idx) && got < pilotKeyed; k++ {
			if !picked[idx[k]] {
				picked[idx[k]] = true
				pick = append(pick, idx[k])
				got++
			}
		}
	}
	return pick
}

// TestPilotPicksAsStableSorts: pilotPicks' one scan per pick takes what
// sortedPicks takes, on candidates whose keys and edges repeat.
func TestPilotPicksAsStableSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 3000 {
		n := r.IntN(40)
		cl := make([]edgeClass, n)
		for k := range cl {
			cl[k] = edgeClass{i: r.IntN(5), j: r.IntN(5), lo: float64(r.IntN(3)), u: float64(r.IntN(3)), hint: float64(r.IntN(3)), slow: float64(r.IntN(3))}
		}
		nf := r.IntN(n + 1)
		if a, b := sortedPicks(cl, nf), pilotPicks(cl, nf); !slices.Equal(a, b) {
			t.Fatalf("trial %d: %v vs %v", trial, a, b)
		}
	}
}

package experiment

import (
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Ceiling returns an upper bound on the mean, over a uniformly random
// source node, of the probability that any (ε, δ)-DP mechanism (DP with
// respect to moving the source one hop) names the source's community.
//
// Two sources s, u in different communities A ≠ B at hop distance d give,
// by group privacy along the path, P(B | s) ≥ e^{−dε}·P(B | u) − δ·S_d with
// S_d = Σ_{j=1..d} e^{−jε}; since A and B are disjoint answers,
//
//	p_s + e^{−dε}·p_u ≤ 1 + δ·S_d,  and the same with s, u swapped,
//
// so (p_s + p_u)/2 ≤ c_d = (1 + δ·S_d)/(1 + e^{−dε}). Any set of disjoint
// such pairs therefore bounds the mean: (Σ_pairs 2·c_d + #unpaired)/n.
// Ceiling pairs greedily, first across edges (d = 1), then at distance 2
// (docs/guarantee.md §"The ceiling").
func Ceiling(g *laplacian.Graph, part []int, epsilon, delta float64) float64 {
	n := g.N()
	if n == 0 || len(part) != n {
		return math.NaN()
	}
	rowPtr, col, _ := g.CSR()
	matched := make([]bool, n)
	bound := 0.0
	pair := func(s, u, d int) {
		matched[s], matched[u] = true, true
		sd := 0.0
		for j := 1; j <= d; j++ {
			sd += math.Exp(-float64(j) * epsilon)
		}
		bound += 2 * (1 + delta*sd) / (1 + math.Exp(-float64(d)*epsilon))
	}
	for s := 0; s < n; s++ {
		if matched[s] {
			continue
		}
		for _, u := range col[rowPtr[s]:rowPtr[s+1]] {
			if !matched[u] && part[u] != part[s] {
				pair(s, int(u), 1)
				break
			}
		}
	}
	for s := 0; s < n; s++ {
		if matched[s] {
			continue
		}
	search:
		for _, v := range col[rowPtr[s]:rowPtr[s+1]] {
			for _, u := range col[rowPtr[v]:rowPtr[v+1]] {
				if int(u) != s && !matched[u] && part[u] != part[s] && !adjacent(col[rowPtr[s]:rowPtr[s+1]], u) {
					pair(s, int(u), 2)
					break search
				}
			}
		}
	}
	for s := 0; s < n; s++ {
		if !matched[s] {
			bound++
		}
	}
	return math.Min(1, bound/float64(n))
}

// adjacent reports whether u is in the neighbour list (sorted CSR row).
func adjacent(row []int32, u int32) bool {
	lo, hi := 0, len(row)
	for lo < hi {
		m := (lo + hi) / 2
		if row[m] < u {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(row) && row[lo] == u
}

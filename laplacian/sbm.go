package laplacian

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MaxSBMBlocks bounds the number of SBM blocks (the generator visits every
// block pair once).
const MaxSBMBlocks = 10000

// SBM samples a stochastic block model: nodes are split into consecutive
// blocks of the given sizes (block b holds indices
// sizes[0]+…+sizes[b−1] .. +sizes[b]−1), and each unordered pair {u, v} is
// joined independently with probability
//
//	P(u ~ v) = pIn  if block(u) = block(v)
//	           pOut otherwise
//
// It returns the graph (unit weights, decimal keys) and the planted block
// of each node. The expected edge count is
// Σ_b pIn·s_b(s_b−1)/2 + Σ_{a<b} pOut·s_a·s_b.
//
// Sampling costs O(n + m + B²) for B blocks: each block pair is a run of
// K candidate pairs enumerated in order, and the gap to the next chosen
// pair is geometric, skip = ⌊ln(1−r)/ln(1−p)⌋ with r uniform in [0, 1)
// (V. Batagelj and U. Brandes, "Efficient generation of large random
// networks", Phys. Rev. E 71, 036113, 2005, Algorithm 1).
// The stream is math/rand/v2's PCG seeded with (seed, 0x5eed): the same
// seed gives the same graph. This is simulation randomness, never privacy
// noise.
func SBM(sizes []int, pIn, pOut float64, seed uint64) (*Graph, []int, error) {
	if err := checkSBM(sizes, pIn, pOut); err != nil {
		return nil, nil, err
	}
	n := 0
	for _, s := range sizes {
		n += s
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	exp := expectedSBMEdges(sizes, pIn, pOut)
	edges := make([]Edge, 0, int(exp+6*math.Sqrt(exp)+16))
	blocks := make([]int, n)
	offset := make([]int, len(sizes)+1)
	for b, s := range sizes {
		offset[b+1] = offset[b] + s
		for i := offset[b]; i < offset[b+1]; i++ {
			blocks[i] = b
		}
	}
	for a := range sizes {
		edges = sampleWithin(edges, rng, int32(offset[a]), int64(sizes[a]), pIn)
		for b := a + 1; b < len(sizes); b++ {
			edges = sampleBetween(edges, rng, int32(offset[a]), int64(sizes[a]), int32(offset[b]), int64(sizes[b]), pOut)
		}
	}
	g, err := FromEdges(n, nil, edges, Options{Duplicates: DuplicatesReject})
	if err != nil {
		return nil, nil, fmt.Errorf("laplacian: sbm: internal error: %w", err)
	}
	return g, blocks, nil
}

func expectedSBMEdges(sizes []int, pIn, pOut float64) float64 {
	var in, tot float64
	for _, s := range sizes {
		in += float64(s) * float64(s-1) / 2
		tot += float64(s)
	}
	between := (tot*(tot-1))/2 - in
	return pIn*in + pOut*between
}

func checkSBM(sizes []int, pIn, pOut float64) error {
	if err := checkSize("sbm", "blocks", float64(len(sizes)), 1, MaxSBMBlocks); err != nil {
		return err
	}
	n := 0
	for _, s := range sizes {
		if err := checkSize("sbm", "sizes", float64(s), 1, math.MaxInt32); err != nil {
			return err
		}
		n += s
		if err := checkSize("sbm", "n", float64(n), 1, math.MaxInt32); err != nil {
			return err
		}
	}
	if err := checkSize("sbm", "pin", pIn, 0, 1); err != nil {
		return err
	}
	if err := checkSize("sbm", "pout", pOut, 0, 1); err != nil {
		return err
	}
	return checkSize("sbm", "edges", expectedSBMEdges(sizes, pIn, pOut), 0, MaxGeneratedEdges)
}

// geomSkip returns the number of candidates to pass over before the next
// success, or ok = false when that reaches past the remaining `left`
// candidates. lp = ln(1−p) < 0.
func geomSkip(rng *rand.Rand, lp float64, left int64) (int64, bool) {
	s := math.Floor(math.Log1p(-rng.Float64()) / lp)
	if !(s < float64(left)) { // also catches +Inf
		return 0, false
	}
	return int64(s), true
}

// sampleWithin adds the G(s, p) edges among nodes off..off+s−1. Candidate
// pairs (v, w), w < v, are enumerated row by row.
func sampleWithin(edges []Edge, rng *rand.Rand, off int32, s int64, p float64) []Edge {
	if p <= 0 || s < 2 {
		return edges
	}
	if p >= 1 {
		for v := int64(1); v < s; v++ {
			for w := int64(0); w < v; w++ {
				edges = append(edges, Edge{off + int32(v), off + int32(w), 1})
			}
		}
		return edges
	}
	lp := math.Log1p(-p)
	K := s * (s - 1) / 2
	k := int64(-1) // linear index of the current candidate
	v, w := int64(1), int64(-1)
	for {
		skip, ok := geomSkip(rng, lp, K-k-1)
		if !ok {
			return edges
		}
		k += 1 + skip
		w += 1 + skip
		for w >= v {
			w -= v
			v++
		}
		edges = append(edges, Edge{off + int32(v), off + int32(w), 1})
	}
}

// sampleBetween adds each of the sa·sb pairs between two blocks with
// probability p.
func sampleBetween(edges []Edge, rng *rand.Rand, offA int32, sa int64, offB int32, sb int64, p float64) []Edge {
	if p <= 0 {
		return edges
	}
	if p >= 1 {
		for i := int64(0); i < sa; i++ {
			for j := int64(0); j < sb; j++ {
				edges = append(edges, Edge{offA + int32(i), offB + int32(j), 1})
			}
		}
		return edges
	}
	lp := math.Log1p(-p)
	K := sa * sb
	k := int64(-1)
	for {
		skip, ok := geomSkip(rng, lp, K-k-1)
		if !ok {
			return edges
		}
		k += 1 + skip
		edges = append(edges, Edge{offA + int32(k/sb), offB + int32(k%sb), 1})
	}
}

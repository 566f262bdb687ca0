package community

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Top90Fraction is the share of the recovered mass that Report.Top90Nodes
// must hold.
const Top90Fraction = 0.9

// Report is the source-community report: communities ranked by the share of
// recovered mass (or posterior probability) they hold, and the smallest set
// of nodes that holds 90% of it. When nothing was detected NoSource is set,
// Reason says why, and Communities and Top90Nodes are empty: the report never
// names a community it has no evidence for.
type Report struct {
	Communities []Ranked `json:"communities"`
	NoSource    bool     `json:"noSource"`
	Reason      string   `json:"reason,omitempty"`
	// Top90Nodes are node indices, heaviest first: the smallest set whose
	// weights sum to at least Top90Fraction of TotalMass. Top90Keys are
	// the same nodes by key: JSON shows keys, never internal indices.
	Top90Nodes []int    `json:"-"`
	Top90Keys  []string `json:"top90Nodes"`
	// TotalMass is Σ_i max(w_i, 0) over all nodes.
	TotalMass float64 `json:"totalMass"`
}

// Ranked is one community in a Report.
type Ranked struct {
	ID    int     `json:"id"`
	Name  string  `json:"name"`
	Share float64 `json:"probability"` // Σ_{i∈c} w_i / Σ_i w_i: the PROBABILITY column
	Size  int     `json:"size"`        // number of nodes
	Rank  int     `json:"rank"`        // 1 = most likely source community
}

// Aggregate returns the per-community sums s_c = Σ_{i: part[i]=c} max(w_i, 0)
// for c = 0..k−1, where k = max(part)+1.
//
// Aggregate panics if the lengths differ or an id is negative.
func Aggregate(part []int, weights []float64) []float64 {
	if len(part) != len(weights) {
		panic("community: partition and weights differ in length")
	}
	k := 0
	for _, c := range part {
		if c < 0 {
			panic("community: negative community id")
		}
		k = max(k, c+1)
	}
	s := make([]float64, k)
	for i, c := range part {
		if w := weights[i]; w > 0 {
			s[c] += w
		}
	}
	return s
}

// Rank builds the source-community report from per-node weights (recovered
// mass f̂ or posterior probability p(s | ỹ)). Negative weights, which a
// solver can leave at the level of its tolerance, count as zero. Shares are
// s_c / Σ_c s_c (they sum to 1), ranked by decreasing share with ties broken
// by smaller id. Every community of part appears, including those with zero
// share. names may be nil (names are then the ids in decimal).
//
// The report says "no detectable source" when noSource is true (the
// estimator found f̂ = 0, or the recovery problem was infeasible) or when
// the total weight is zero.
//
// Rank panics if len(part) or len(weights) differs from g.N(), if a weight
// is NaN or infinite, or if names is non-nil and shorter than the number of
// communities.
func Rank(g *laplacian.Graph, part []int, names []string, weights []float64, noSource bool) *Report {
	rep := RankCommunities(g, part, names, weights, noSource)
	if rep.NoSource {
		return rep
	}
	rep.Top90Nodes = TopMassNodes(weights, Top90Fraction)
	rep.Top90Keys = make([]string, len(rep.Top90Nodes))
	for i, v := range rep.Top90Nodes {
		rep.Top90Keys[i] = g.Key(v)
	}
	return rep
}

// RankCommunities is Rank without the 90% node set (Top90Nodes and
// Top90Keys left empty): what a simulation's trials score, where the node
// set of a flat posterior is most of the graph and costs more than the
// rest of the trial.
func RankCommunities(g *laplacian.Graph, part []int, names []string, weights []float64, noSource bool) *Report {
	n := g.N()
	if len(part) != n || len(weights) != n {
		panic(fmt.Sprintf("community: Rank needs %d-long partition and weights, got %d and %d", n, len(part), len(weights)))
	}
	total := 0.0
	for _, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			panic("community: non-finite weight")
		}
		if w > 0 {
			total += w
		}
	}
	rep := &Report{TotalMass: total, Communities: []Ranked{}, Top90Nodes: []int{}, Top90Keys: []string{}}
	switch {
	case noSource:
		rep.NoSource = true
		rep.Reason = "no detectable source: the estimator found no signal above the noise (f̂ = 0 or the recovery problem is infeasible)"
		return rep
	case total == 0:
		rep.NoSource = true
		rep.Reason = "no detectable source: the recovered mass is zero"
		return rep
	}
	sums := Aggregate(part, weights)
	if names != nil && len(names) < len(sums) {
		panic("community: fewer names than communities")
	}
	size := make([]int, len(sums))
	for _, c := range part {
		size[c]++
	}
	for c, s := range sums {
		name := strconv.Itoa(c)
		if names != nil {
			name = names[c]
		}
		rep.Communities = append(rep.Communities, Ranked{ID: c, Name: name, Share: s / total, Size: size[c]})
	}
	sort.SliceStable(rep.Communities, func(a, b int) bool {
		return rep.Communities[a].Share > rep.Communities[b].Share
	})
	for r := range rep.Communities {
		rep.Communities[r].Rank = r + 1
	}
	return rep
}

// TopMassNodes returns the smallest set of node indices whose positive
// weights sum to at least frac·Σ_i max(w_i, 0), heaviest first (ties by
// smaller index). Taking nodes in decreasing weight is optimal: any k nodes
// weigh at most the k heaviest. A relative slack of 1e-12 absorbs rounding
// in the running sum. It returns an empty slice when the total is zero.
func TopMassNodes(weights []float64, frac float64) []int {
	idx := make([]int, 0, len(weights))
	total := 0.0
	for i, w := range weights {
		if w > 0 {
			idx = append(idx, i)
			total += w
		}
	}
	if total == 0 {
		return []int{}
	}
	// The heaviest first, equal weights by index (a stable sort's order),
	// until they hold frac: a heap pops them in that order without sorting
	// the rest (a forecast's posterior puts 90% on a few of 10⁴ nodes).
	h := &heaviest{w: weights, idx: idx}
	heap.Init(h)
	target := frac * total * (1 - 1e-12)
	sum := 0.0
	var out []int
	for h.Len() > 0 {
		i := heap.Pop(h).(int)
		out = append(out, i)
		sum += weights[i]
		if sum >= target {
			break
		}
	}
	return out
}

// heaviest is a heap of node indices, the largest weight on top and, among
// equal weights, the lowest index.
type heaviest struct {
	w   []float64
	idx []int
}

func (h *heaviest) Len() int { return len(h.idx) }
func (h *heaviest) Less(a, b int) bool {
	wa, wb := h.w[h.idx[a]], h.w[h.idx[b]]
	return wa > wb || (wa == wb && h.idx[a] < h.idx[b])
}
func (h *heaviest) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *heaviest) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *heaviest) Pop() any {
	last := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return last
}

// NoiseRatio is the posterior-to-prior ratio below which a ranking is
// noise-dominated: the top community's probability is less than this many
// times its prior probability (its share of the nodes, a source being
// equally likely at every node). Where the prior is large (few
// communities) no posterior reaches 3× it; there the threshold is the
// posterior halfway between the prior and certainty (NoiseThreshold).
const NoiseRatio = 3.0

// NoiseThreshold returns the posterior-to-prior ratio below which a top
// community of prior probability prior is noise-dominated:
// min(NoiseRatio, (1 + prior)/(2·prior)). With two equal communities a
// ranking must put 75% on its top one to count as a finding.
func NoiseThreshold(prior float64) float64 {
	if prior <= 0 {
		return NoiseRatio
	}
	return math.Min(NoiseRatio, (1+prior)/(2*prior))
}

// NoiseDominated reports whether the ranking's top community is less
// likely than NoiseThreshold times its prior (false when nothing was
// detected: that is its own verdict).
func (r *Report) NoiseDominated(n int) bool {
	if r == nil || r.NoSource || len(r.Communities) == 0 || n == 0 {
		return false
	}
	return r.PosteriorToPrior(n) < NoiseThreshold(r.TopPrior(n))
}

// TopPrior returns the top community's share of the nodes (NaN when
// nothing was detected).
func (r *Report) TopPrior(n int) float64 {
	if r == nil || r.NoSource || len(r.Communities) == 0 || n == 0 {
		return math.NaN()
	}
	return float64(r.Communities[0].Size) / float64(n)
}

// PosteriorToPrior returns the top community's probability divided by its
// prior probability size/n (NaN when nothing was detected). For a
// calibrated posterior the top probability is the chance the answer is
// right, so a ratio near 1 means the ranking tells no more than the
// community sizes do.
func (r *Report) PosteriorToPrior(n int) float64 {
	if r == nil || r.NoSource || len(r.Communities) == 0 || n == 0 {
		return math.NaN()
	}
	top := r.Communities[0]
	return top.Share / (float64(top.Size) / float64(n))
}

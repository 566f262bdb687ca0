package community

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Leiden partitions g by maximising the weighted modularity with
// resolution γ,
//
//	Q = 1/2m Σ_ij [ W_ij − γ k_i k_j / 2m ] δ(c_i, c_j),   k_i = Σ_j W_ij,
//
// with the Leiden algorithm (Traag, Waltman & van Eck, "From Louvain to
// Leiden: guaranteeing well-connected communities", Sci. Rep. 9:5233,
// 2019, doi:10.1038/s41598-019-41695-z). Each pass
//
//  1. moves nodes between communities while that raises Q, visiting a
//     queue that only re-admits the neighbours of moved nodes (fast local
//     moving);
//  2. refines every community: starting from singletons inside it, each
//     well-connected singleton joins the refined sub-community (within the
//     same community, linked to it by an edge) that raises Q most, so every
//     refined community is connected;
//  3. aggregates the graph on the refined partition, with the unrefined
//     partition as the starting assignment of the aggregate nodes,
//
// until local moving leaves every aggregate node in a community of its own.
// The communities returned are then refined communities, so each is
// connected. The refinement picks the best merge (the θ → 0 limit of the
// paper's randomised choice); node orders are drawn from a PCG stream
// seeded by seed, so the result depends only on g, γ and seed. Passes are
// repeated from the previous result while they raise Q (at most
// MaxPasses, default 2); a later pass whose local moving on the graph
// itself moves fewer than one node in 1 000 ends there, the partition
// having converged. A graph without edges gives one community per node.
//
// Communities are labelled densely in order of each one's lowest node by
// key, and the partition depends only on the graph (its nodes named by
// their keys), γ and the seed — not on the order its nodes were read in:
// Leiden runs on the nodes in key order (Graph.KeyOrder).
func Leiden(g *laplacian.Graph, opt LeidenOptions) ([]int, error) {
	ld, err := newLeiden(opt)
	if err != nil {
		return nil, err
	}
	n := g.N()
	if g.NumEdges() == 0 {
		return identityInts(n), nil
	}
	// On the nodes in key order, labels mapped back: the partition is
	// the same whatever order the graph was read in.
	perm := g.KeyOrder()
	if perm == nil {
		return ld.run(levelOf(g), identity(n), nil, passesOf(opt)), nil
	}
	sorted := ld.run(levelOf(g.Permute(perm)), identity(n), nil, passesOf(opt))
	part := make([]int, n)
	for p, v := range perm {
		part[v] = sorted[p]
	}
	return part, nil
}

func passesOf(opt LeidenOptions) int {
	if opt.MaxPasses <= 0 {
		return 2
	}
	return opt.MaxPasses
}

func identityInts(n int) []int {
	part := make([]int, n)
	for i := range part {
		part[i] = i
	}
	return part
}

// LeidenOptions configure Leiden. The zero value means the defaults.
type LeidenOptions struct {
	// Resolution is γ > 0 (default 1): larger γ, smaller communities.
	Resolution float64
	// Seed seeds the node orders.
	Seed uint64
	// MaxPasses bounds the full Leiden passes, each starting from the
	// previous partition (default 2, as leidenalg and igraph; passes also
	// stop when Q stops rising). On graphs with weak structure each further
	// pass merges a few more communities for a small gain in Q.
	MaxPasses int
	// Concurrency is the number of worker goroutines (default and maximum
	// GOMAXPROCS). The partition is the same for every value.
	Concurrency int
}

// Modularity returns Q of part on g at resolution γ (the formula of
// Leiden), computed directly from its definition in O(|E| + n). Labels may
// be any ints.
//
// Modularity panics if len(part) != g.N().
func Modularity(g *laplacian.Graph, part []int, gamma float64) float64 {
	if len(part) != g.N() {
		panic("community: partition length does not match the graph")
	}
	p := make([]int32, len(part))
	for i, c := range part {
		if c < 0 || c >= len(part) {
			dense, _ := Canonical(nil, part)
			for i, c := range dense {
				p[i] = int32(c)
			}
			break
		}
		p[i] = int32(c)
	}
	return levelModularity(levelOf(g), p, gamma, 0)
}

// leiden holds one run's settings, random stream and per-worker scratch.
type leiden struct {
	gamma         float64
	workers       int
	rng           *rand.Rand
	scratch       []moveScratch
	refineScratch []refineScratch
}

func newLeiden(opt LeidenOptions) (*leiden, error) {
	gamma := opt.Resolution
	if gamma == 0 {
		gamma = 1
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, fmt.Errorf("community: resolution must be positive and finite, got %v", gamma)
	}
	w := workersFor(opt.Concurrency)
	return &leiden{gamma: gamma, workers: w, scratch: make([]moveScratch, w),
		rng: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))}, nil
}

// permBlock is the number of consecutive nodes perm keeps together on
// levels of at least blockedNodes nodes; smaller levels fit in a core's
// cache (≈ 36 bytes of state per node), so they gain nothing from it.
const (
	permBlock    = 64
	blockedNodes = 1 << 14
)

// perm returns a random order of 0..n−1 that is random at two scales:
// the blocks of permBlock consecutive nodes come in a random order, and
// the nodes of each block in a random order among themselves. Visiting a
// node reads its label, strength and row; in a uniformly random order
// each of those reads is a cache miss, while here a block's labels,
// strengths and rows share a few cache lines (about −20% CPU on the
// benchmark graphs). Blocks are small beside the chunks of local moving,
// so the nodes decided together are still spread over the graph. Levels
// under blockedNodes nodes get a uniformly random order.
func (ld *leiden) perm(n int) []int32 {
	if n < blockedNodes {
		return shuffled(ld.rng, n)
	}
	blocks := (n + permBlock - 1) / permBlock
	p := make([]int32, 0, n)
	for _, b := range shuffled(ld.rng, blocks) {
		lo := int(b) * permBlock
		from := len(p)
		for v := lo; v < min(lo+permBlock, n); v++ {
			p = append(p, int32(v))
		}
		shuffle(ld.rng, p[from:])
	}
	return p
}

// shuffled returns 0..n−1 in a random order.
func shuffled(rng *rand.Rand, n int) []int32 {
	p := identity(n)
	shuffle(rng, p)
	return p
}

// shuffle permutes p uniformly at random (Fisher–Yates).
func shuffle(rng *rand.Rand, p []int32) {
	for i := len(p) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}

// Local moving at a level stops when a sweep raises Q by less than a
// tolerance that starts at firstTolerance and drops toleranceDrop-fold
// at each level (the threshold scaling of GVE-Leiden, Sahu 2023, arXiv
// 2312.13936): early levels need not converge exactly, since later ones
// move whole groups.
const (
	firstTolerance = 1e-2
	toleranceDrop  = 10
)

// pass runs the Leiden algorithm from the partition part of the base
// graph's nodes (labels in 0..n−1) and returns the new partition. active
// (nil: all) marks the base nodes local moving starts from. A later pass
// (part is an earlier pass's result) ends after local moving on the base
// graph when that moved fewer than one node in settledShare; stable then
// reports that it moved none (no single move raises Q: the partition is
// part, checked).
func (ld *leiden) pass(base *level, part []int32, active []bool, later bool) (out []int32, stable bool) {
	lv := base
	member := identity(base.n) // the aggregate node (at the current level) of each base node
	comm := append([]int32(nil), part...)
	tolerance := firstTolerance
	for {
		order := ld.perm(lv.n)
		moves := ld.moveNodes(lv, comm, active, order, tolerance)
		if later && lv == base && moves*settledShare < base.n {
			return comm, moves == 0
		}
		tolerance /= toleranceDrop
		active = nil
		ncomm := relabel(comm)
		if ncomm == lv.n {
			break // every aggregate node is its own community
		}
		refined := ld.refine(lv, comm, ncomm, order)
		nref := relabel(refined)
		if nref == lv.n {
			refined, nref = append([]int32(nil), comm...), ncomm // nothing merged: aggregate on the partition itself
		}
		next, nextComm := ld.aggregate(lv, refined, nref, comm)
		forBlocks(ld.workers, len(member), 1<<16, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				member[i] = refined[member[i]]
			}
		})
		lv, comm = next, nextComm
	}
	out = make([]int32, base.n)
	for i, a := range member {
		out[i] = comm[a]
	}
	return out, false
}

// run repeats passes from part while they raise Q and returns the best
// partition, labelled densely in order of each community's lowest node.
func (ld *leiden) run(base *level, part []int32, active []bool, passes int) []int {
	best := math.Inf(-1)
	var bestPart []int32
	checked := false // bestPart is known to admit no single move that raises Q
	for p := 0; p < passes; p++ {
		var stable bool
		part, stable = ld.pass(base, part, active, p > 0)
		active = nil
		if stable {
			// The pass moved nothing: part is the previous best, and
			// the final sweep of settle would repeat the one just made.
			checked = true
			break
		}
		q := levelModularity(base, part, ld.gamma, ld.workers)
		if q <= best+1e-12 {
			break
		}
		best, bestPart = q, part
	}
	ld.settle(base, bestPart, nil, ld.perm(base.n), checked)
	relabel(bestPart)
	out := make([]int, len(bestPart))
	for i, c := range bestPart {
		out[i] = int(c)
	}
	return out
}

// settledShare: a later pass whose local moving on the base graph moves
// fewer than one node in settledShare ends there. Its refinement and
// aggregation would rebuild nearly the levels of the pass before, for
// about a quarter of the run's time: on LFR graphs of 10⁶ edges that
// remainder of the second pass moved a few dozen aggregate nodes and
// raised Q by 10⁻⁴ at most; where the second pass does change the
// partition (preferential attachment at 2·10⁵ nodes: a sixth of the nodes
// move) it runs to the end as before.
const settledShare = 1000

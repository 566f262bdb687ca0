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
// MaxPasses, default 2). A graph without edges gives one community per node.
//
// Communities are labelled densely in order of each one's lowest node.
func Leiden(g *laplacian.Graph, opt LeidenOptions) ([]int, error) {
	gamma := opt.Resolution
	if gamma == 0 {
		gamma = 1
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, fmt.Errorf("community: resolution must be positive and finite, got %v", gamma)
	}
	n := g.N()
	if g.NumEdges() == 0 {
		part := make([]int, n)
		for i := range part {
			part[i] = i
		}
		return part, nil
	}
	passes := opt.MaxPasses
	if passes <= 0 {
		passes = 2
	}
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	base := levelOf(g)
	part := make([]int32, n)
	for i := range part {
		part[i] = int32(i)
	}
	best := math.Inf(-1)
	var bestPart []int32
	for p := 0; p < passes; p++ {
		part = leidenPass(base, part, gamma, rng)
		q := levelModularity(base, part, gamma)
		if q <= best+1e-12 {
			break
		}
		best, bestPart = q, append([]int32(nil), part...)
	}
	out := make([]int, n)
	for i, c := range bestPart {
		out[i] = int(c)
	}
	out, _ = Canonical(out)
	return out, nil
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
}

// Modularity returns Q of part on g at resolution γ (the formula of
// Leiden), computed directly from its definition in O(|E| + n).
func Modularity(g *laplacian.Graph, part []int, gamma float64) float64 {
	p := make([]int32, len(part))
	for i, c := range part {
		p[i] = int32(c)
	}
	return levelModularity(levelOf(g), p, gamma)
}

// level is one graph of the Leiden hierarchy in CSR form: node strengths k
// (of the original graph's nodes they stand for), links to other nodes, and
// the total weight of links inside each node (internal edges of the nodes
// it aggregates).
type level struct {
	n      int
	rowPtr []int64
	col    []int32
	w      []float64
	k      []float64
	inner  []float64
	m2     float64 // 2m = Σ k
}

func levelOf(g *laplacian.Graph) *level {
	n := g.N()
	lv := &level{n: n, rowPtr: make([]int64, n+1), k: append([]float64(nil), g.Degrees()...), inner: make([]float64, n)}
	for i := 0; i < n; i++ {
		cols, ws := g.Neighbors(i)
		lv.rowPtr[i+1] = lv.rowPtr[i] + int64(len(cols))
		lv.col = append(lv.col, cols...)
		if ws == nil {
			for range cols {
				lv.w = append(lv.w, 1)
			}
		} else {
			lv.w = append(lv.w, ws...)
		}
	}
	for _, x := range lv.k {
		lv.m2 += x
	}
	return lv
}

// levelModularity computes Q from the definition: the weight inside
// communities (inner weights of aggregate nodes included) minus γ times
// the expected weight Σ_c K_c²/2m, over m.
func levelModularity(lv *level, part []int32, gamma float64) float64 {
	in := 0.0
	K := map[int32]float64{}
	for v := 0; v < lv.n; v++ {
		c := part[v]
		K[c] += lv.k[v]
		in += 2 * lv.inner[v]
		for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
			if part[lv.col[p]] == c {
				in += lv.w[p]
			}
		}
	}
	exp := 0.0
	for _, x := range K {
		exp += x * x
	}
	return (in - gamma*exp/lv.m2) / lv.m2
}

// leidenPass runs the Leiden algorithm from the partition part of the
// base graph's nodes and returns the new partition.
func leidenPass(base *level, part []int32, gamma float64, rng *rand.Rand) []int32 {
	lv := base
	// member[v] is the aggregate node (at the current level) of base node v.
	member := make([]int32, base.n)
	for i := range member {
		member[i] = int32(i)
	}
	comm := append([]int32(nil), part...)
	for {
		moveNodes(lv, comm, gamma, rng)
		ncomm := relabel(comm)
		if ncomm == lv.n {
			break // every aggregate node is its own community
		}
		refined := refine(lv, comm, gamma, rng)
		nref := relabel(refined)
		if nref == lv.n {
			refined, nref = append([]int32(nil), comm...), ncomm // nothing merged: aggregate on the partition itself
		}
		next, nextComm := aggregate(lv, refined, nref, comm)
		for i := range member {
			member[i] = refined[member[i]]
		}
		lv, comm = next, nextComm
	}
	out := make([]int32, base.n)
	for i, a := range member {
		out[i] = comm[a]
	}
	return out
}

// relabel maps the labels of part to 0..k−1 in order of first appearance
// and returns k.
func relabel(part []int32) int {
	ids := make([]int32, len(part))
	for i := range ids {
		ids[i] = -1
	}
	k := int32(0)
	for i, c := range part {
		if ids[c] < 0 {
			ids[c] = k
			k++
		}
		part[i] = ids[c]
	}
	return int(k)
}

// moveNodes is the fast local moving phase: nodes are visited from a queue
// (initially all, in random order); a node moves to the neighbouring
// community (or an empty one) with the largest gain
//
//	ΔQ·m = E(v, B) − E(v, A∖v) − γ k_v (K_B − K_{A∖v}) / 2m
//
// when that gain is positive, and its neighbours outside B rejoin the
// queue. Labels in comm must lie in 0..n−1.
func moveNodes(lv *level, comm []int32, gamma float64, rng *rand.Rand) {
	n := lv.n
	K := make([]float64, n)
	size := make([]int32, n)
	for v := 0; v < n; v++ {
		K[comm[v]] += lv.k[v]
		size[comm[v]]++
	}
	var empty []int32
	for c := n - 1; c >= 0; c-- {
		if size[c] == 0 {
			empty = append(empty, int32(c))
		}
	}
	queue := make([]int32, n)
	for i, v := range rng.Perm(n) {
		queue[i] = int32(v)
	}
	inQueue := make([]bool, n)
	for i := range inQueue {
		inQueue[i] = true
	}
	head, count := 0, n
	wTo := make([]float64, n) // weight from v to each community
	var touched []int32
	scale := gamma / lv.m2
	for count > 0 {
		v := queue[head]
		head = (head + 1) % n
		count--
		inQueue[v] = false
		a := comm[v]
		kv := lv.k[v]
		touched = touched[:0]
		for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
			c := comm[lv.col[p]]
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c] += lv.w[p]
		}
		stay := wTo[a] - scale*kv*(K[a]-kv)
		best, bestGain := a, stay
		for _, c := range touched {
			if c == a {
				continue
			}
			if gain := wTo[c] - scale*kv*K[c]; gain > bestGain+1e-12 {
				best, bestGain = c, gain
			}
		}
		if size[a] > 1 && 0 > bestGain+1e-12 && len(empty) > 0 {
			best = empty[len(empty)-1] // alone is better than anywhere
		}
		for _, c := range touched {
			wTo[c] = 0
		}
		if best == a {
			continue
		}
		if len(empty) > 0 && best == empty[len(empty)-1] {
			empty = empty[:len(empty)-1]
		}
		K[a] -= kv
		size[a]--
		if size[a] == 0 {
			empty = append(empty, a)
		}
		K[best] += kv
		size[best]++
		comm[v] = best
		for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
			u := lv.col[p]
			if !inQueue[u] && comm[u] != best {
				inQueue[u] = true
				queue[(head+count)%n] = u
				count++
			}
		}
	}
}

// refine splits every community of comm into connected sub-communities:
// within each community S, nodes start as singletons; in random order,
// each well-connected singleton v (E(v, S∖v) ≥ γ k_v (K_S − k_v)/2m) joins
// the sub-community C of S that it has an edge to, that is itself well
// connected (E(C, S∖C) ≥ γ K_C (K_S − K_C)/2m) and that gives the largest
// non-negative gain E(v, C) − γ k_v K_C/2m. It returns the refined labels.
func refine(lv *level, comm []int32, gamma float64, rng *rand.Rand) []int32 {
	n := lv.n
	scale := gamma / lv.m2
	ref := make([]int32, n)
	Kref := append([]float64(nil), lv.k...)
	ext := make([]float64, n) // E(C, S∖C) of each refined community C
	single := make([]bool, n)
	KS := map[int32]float64{}
	for v := 0; v < n; v++ {
		ref[v] = int32(v)
		single[v] = true
		KS[comm[v]] += lv.k[v]
		for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
			if comm[lv.col[p]] == comm[v] {
				ext[v] += lv.w[p]
			}
		}
	}
	wTo := make([]float64, n)
	var touched []int32
	for _, vi := range rng.Perm(n) {
		v := int32(vi)
		if !single[v] {
			continue
		}
		s, kv := comm[v], lv.k[v]
		if ext[v] < scale*kv*(KS[s]-kv) {
			continue // not well connected to the rest of its community
		}
		touched = touched[:0]
		for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
			u := lv.col[p]
			if comm[u] != s {
				continue
			}
			c := ref[u]
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c] += lv.w[p]
		}
		best, bestGain := int32(-1), 0.0
		for _, c := range touched {
			if c == ref[v] || ext[c] < scale*Kref[c]*(KS[s]-Kref[c]) {
				continue
			}
			if gain := wTo[c] - scale*kv*Kref[c]; gain >= bestGain {
				best, bestGain = c, gain
			}
		}
		if best >= 0 {
			// Merge v into best: the edges between them become internal.
			ext[best] += ext[v] - 2*wTo[best]
			Kref[best] += kv
			ref[v] = best
			single[v], single[best] = false, false
		}
		for _, c := range touched {
			wTo[c] = 0
		}
	}
	return ref
}

// aggregate builds the graph whose nodes are the refined communities
// (labels 0..k−1) and returns it with each new node's community: the
// community (in comm) of its members.
func aggregate(lv *level, refined []int32, k int, comm []int32) (*level, []int32) {
	next := &level{n: k, rowPtr: make([]int64, k+1), k: make([]float64, k), inner: make([]float64, k), m2: lv.m2}
	nextComm := make([]int32, k)
	members := make([][]int32, k)
	for v := 0; v < lv.n; v++ {
		r := refined[v]
		members[r] = append(members[r], int32(v))
		next.k[r] += lv.k[v]
		next.inner[r] += lv.inner[v]
		nextComm[r] = comm[v]
	}
	wTo := make([]float64, k)
	var touched []int32
	for r := 0; r < k; r++ {
		touched = touched[:0]
		for _, v := range members[r] {
			for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
				t := refined[lv.col[p]]
				if t == int32(r) {
					next.inner[r] += lv.w[p] / 2 // each internal link is seen from both ends
					continue
				}
				if wTo[t] == 0 {
					touched = append(touched, t)
				}
				wTo[t] += lv.w[p]
			}
		}
		for _, t := range touched {
			next.col = append(next.col, t)
			next.w = append(next.w, wTo[t])
			wTo[t] = 0
		}
		next.rowPtr[r+1] = int64(len(next.col))
	}
	relabel(nextComm)
	return next, nextComm
}

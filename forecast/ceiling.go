package forecast

import (
	"context"
	"math"
	"slices"

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
// Ceiling returns the smaller of that pair bound (pairs formed greedily,
// first across edges, then at distance 2) and the star bound
// (starCeiling); docs/guarantee.md §"The ceiling".
func Ceiling(g *laplacian.Graph, part []int, epsilon, delta float64) float64 {
	n := g.N()
	if n == 0 || len(part) != n {
		return math.NaN()
	}
	return math.Min(pairCeiling(g, part, epsilon, delta), starCeiling(g, part, epsilon, delta))
}

// RoutedCeiling is Ceiling tightened by routed constraints
// (routedCeiling): every source credits, in every other community, a
// member chosen to spread the credit over the whole community rather than
// its boundary. On an LFR graph of 2·10⁴ nodes and 300 communities it is
// 2.6% / 5.5% / 23.7% at ε = 0.5 / 1 / 2 where Ceiling is 9.0% / 15.8% /
// 37.5%, and takes seconds there (minutes near DefaultRoutedPairs) where
// Ceiling takes less than one. Plan, the dry run, experiment and the
// utility bench all show this one, so they agree. Where n·k
// exceeds 2²⁴ it is Ceiling (RoutedCeilingUpTo goes further). When ctx is
// done it returns the bound reached so far (still an upper bound) with
// ctx's error.
func RoutedCeiling(ctx context.Context, g *laplacian.Graph, part []int, epsilon, delta float64) (float64, error) {
	return RoutedCeilingUpTo(ctx, g, part, epsilon, delta, DefaultRoutedPairs)
}

// DefaultRoutedPairs is the n·k up to which RoutedCeiling routes: above
// it a ceiling costs minutes of CPU per ε (lfr100k-0.4, n·k = 8.7·10⁷:
// 11.6 min of CPU, 2.6 GiB), more than plan and experiment should spend
// unasked.
const DefaultRoutedPairs = 1 << 24

// RoutedCeilingUpTo is RoutedCeiling routing up to n·k = maxPairs pairs
// (at most 2²⁷, 20 bytes a pair; above 2²⁴ with a 3× shorter dual
// schedule).
func RoutedCeilingUpTo(ctx context.Context, g *laplacian.Graph, part []int, epsilon, delta float64, maxPairs int) (float64, error) {
	c := Ceiling(g, part, epsilon, delta)
	if math.IsNaN(c) {
		return c, nil
	}
	if k := len(communityMembers(part)); g.N()*k > maxPairs {
		return c, nil
	}
	if c-routedFloor(g, part, epsilon) <= routedSkipGap {
		return c, nil // no routing can end more than routedSkipGap below c
	}
	return math.Min(c, routedCeiling(ctx, g, part, epsilon, delta)), ctx.Err()
}

// routedSkipGap is how far below Ceiling the routed bound must be able to
// go for the routings to run (routedFloor).
const routedSkipGap = 1e-4

// routedFloor is a value every routed bound is at least, whatever its
// routings and duals: the mean of p_s = min(π, 1 − π·R_s), where R_s =
// Σ e^{−ε·d(s,o)} over the other communities o within maxFarHops of s (d
// the distance to o's nearest member) and π = 1/max(1, max_s R_s). A
// routed row credits each such o once, at a member no nearer than d, with
// a coefficient rounded down, and its right-hand side is at least 1: with
// every p_u ≤ π, p_s + Σ a·p_u ≤ 1 − π·R_s + π·R_s, so p meets every row of
// every routing and of their mean, and every dual value bounds its mean
// from above (weak duality). Where Ceiling is within routedSkipGap of it,
// routing can gain no more than that (docs/derivations.md, "Skipping the
// routings"). One search per community, as a routing's.
func routedFloor(g *laplacian.Graph, part []int, epsilon float64) float64 {
	n := g.N()
	decay := hopDecay(epsilon)
	sum := make([]float64, n)
	sr := newRouteSearch(g, make([]float64, n), 1) // potentials 0: values are hops
	for _, m := range communityMembers(part) {
		sr.run(m)
		for s, d := range sr.hop {
			if d > 0 && part[s] != part[m[0]] {
				sum[s] += decay[d]
			}
		}
	}
	pi := 1 / math.Max(1, slices.Max(sum)) // π·R_s ≤ 1 for every s
	mean := 0.0
	for _, r := range sum {
		mean += math.Min(pi, 1-pi*r)
	}
	return mean / float64(n)
}

// pairCeiling is the bound of disjoint pairs (see Ceiling).
func pairCeiling(g *laplacian.Graph, part []int, epsilon, delta float64) float64 {
	n := g.N()
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

// constraints enumerates rows of a packing LP over the accuracies p:
// row(s, b) gives the right-hand side b_s of source s's row (once per s),
// term(s, u, a) a coefficient a of p_u in it (the diagonal 1 is implicit).
// It may be called several times and must enumerate the same rows.
type constraints func(row func(s int, b float64), term func(s, u int, a float64))

// starCeiling bounds the mean with the neighbourhood constraints. For a
// source s in community A, the other communities B at distance 1 from s
// (represented by the mean p of s's neighbours in B) and one node u_D of
// each community D at distance exactly 2, the answers A, B…, D… are
// disjoint, so
//
//	p_s + e^{−ε}·Σ_B mean_{t ∈ N(s)∩B} p_t + e^{−2ε}·Σ_D p_{u_D} ≤ b_s = 1 + δ·(N₁(s)·e^{−ε} + N₂(s)·(e^{−ε} + e^{−2ε})).
//
// Where the graph and partition are small enough (n·k ≤ maxFarPairs) each
// row also takes one nearest member u of every community D at distance
// d ≥ 3 (P(D | s) ≥ e^{−dε}·p_u − δ·S_d by group privacy along a shortest
// path): at small ε the many far communities are what bounds the mean.
func starCeiling(g *laplacian.Graph, part []int, epsilon, delta float64) float64 {
	far := farMembers(g, part)
	decay, gs := hopDecay(epsilon), make([]float64, maxFarHops+1)
	for d := range gs {
		gs[d] = groupSum(d, epsilon)
	}
	return dualBound(g.N(), func(row func(int, float64), term func(int, int, float64)) {
		extra := make([]float64, g.N())
		for _, f := range far {
			term(int(f.s), int(f.u), decay[f.d])
			extra[f.s] += delta * gs[f.d]
		}
		starConstraints(g, part, epsilon, delta, func(s int, b float64) { row(s, b+extra[s]) }, term)
	})
}

// groupSum is S_d = Σ_{j=1..d} e^{−jε}.
func groupSum(d int, epsilon float64) float64 {
	sd := 0.0
	for j := 1; j <= d; j++ {
		sd += math.Exp(-float64(j) * epsilon)
	}
	return sd
}

// farMember says node u is a nearest member of its community to node s, at
// hop distance d ≥ 3.
type farMember struct {
	s, u int32
	d    int8
}

// maxFarPairs bounds n·k for the far-community terms (9 bytes each).
const maxFarPairs = 1 << 25

// maxFarHops is the farthest community distance taken (e^{−16ε} is
// negligible at every ε the forecasts use).
const maxFarHops = 16

// farMembers returns, for every node s and every community at distance
// 3..maxFarHops from it, one nearest member (a multi-source breadth-first
// search per community, remembering where each search started), or nil
// when n·k exceeds maxFarPairs.
func farMembers(g *laplacian.Graph, part []int) []farMember {
	n := g.N()
	members := map[int][]int32{}
	for v, c := range part {
		members[c] = append(members[c], int32(v))
	}
	if n*len(members) > maxFarPairs {
		return nil
	}
	ids := make([]int, 0, len(members))
	for c := range members {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	rowPtr, col, _ := g.CSR()
	dist := make([]int8, n)
	origin := make([]int32, n)
	queue := make([]int32, 0, n)
	var out []farMember
	for _, c := range ids {
		for i := range dist {
			dist[i] = -1
		}
		queue = queue[:0]
		for _, v := range members[c] {
			dist[v], origin[v] = 0, v
			queue = append(queue, v)
		}
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			if dist[u] >= 3 {
				out = append(out, farMember{s: u, u: origin[u], d: dist[u]})
			}
			if dist[u] >= maxFarHops {
				continue
			}
			for _, v := range col[rowPtr[u]:rowPtr[u+1]] {
				if dist[v] < 0 {
					dist[v], origin[v] = dist[u]+1, origin[u]
					queue = append(queue, v)
				}
			}
		}
	}
	return out
}

// dualBound returns a bound on the mean of p over the packing LP
// Cp ≤ b, 0 ≤ p ≤ 1 of cons: by weak duality, for every y ≥ 0,
// Σ_s p_s ≤ Σ_s y_s·b_s + Σ_u max(0, 1 − (Cᵀy)_u). Tried: uniform y = λ
// (the minimum over λ is at a breakpoint λ = 1/(1 + w_u), w_u the column
// sum of u), y_s = θ/(1 + w_s) over a grid of θ, and projected subgradient
// steps from the best of those when the matrix fits in memory. Every
// y ≥ 0 gives a valid bound; the smallest is returned.
func dualBound(n int, cons constraints) float64 {
	w := make([]float64, n)
	b := make([]float64, n)
	count := make([]int, n+1) // the matrix's entries by row, shifted by one
	sumB := 0.0
	cons(func(s int, v float64) { b[s] = v; sumB += v }, func(s, u int, a float64) { w[u] += a; count[s+1]++ })
	sorted := append([]float64(nil), w...)
	slices.Sort(sorted)
	best := float64(n)
	prefix := 0.0 // Σ_{u<i} w_u
	for i, wi := range sorted {
		lambda := 1 / (1 + wi)
		// Terms with w_u < w_i are positive; the rest are zero.
		best = math.Min(best, lambda*sumB+float64(i)-lambda*(float64(i)+prefix))
		prefix += wi
	}
	// y_s = θ/(1 + w_s): (Cᵀy)_u = θ·(1/(1 + w_u) + cov_u). The same
	// pass fills the matrix: cons is enumerated twice in all (each
	// enumeration walks every node's two-hop neighbourhood).
	cov := make([]float64, n)
	m := newStarMatrix(count, b)
	cons(func(int, float64) {}, func(s, u int, a float64) {
		cov[u] += a / (1 + w[s])
		if m != nil {
			m.add(s, u, a)
		}
	})
	by := 0.0
	for s := range b {
		by += b[s] / (1 + w[s])
		cov[s] += 1 / (1 + w[s])
	}
	bestTheta := 1.0
	for theta := 0.5; theta <= 2; theta += 1.0 / 64 {
		bound := theta * by
		for _, c := range cov {
			bound += math.Max(0, 1-theta*c)
		}
		if bound < best {
			best, bestTheta = bound, theta
		}
	}
	if m != nil {
		m.next = nil
		y := make([]float64, n)
		for s := range y {
			y[s] = bestTheta / (1 + w[s])
		}
		best = math.Min(best, m.descend(y, starSteps))
	}
	return math.Min(1, best/float64(n))
}

// starConstraints enumerates the star constraints (starCeiling). A
// community B next to s is represented by all of s's neighbours in B, each
// with weight e^{−ε}/|N(s) ∩ B| (P(B | s) is at least e^{−ε}·(p_t − δ) for
// each of them, so at least e^{−ε} times their mean, less δ); a community
// at distance 2 by the first node found there.
func starConstraints(g *laplacian.Graph, part []int, epsilon, delta float64, row func(s int, b float64), term func(s, u int, a float64)) {
	rowPtr, col, _ := g.CSR()
	e1, e2 := math.Exp(-epsilon), math.Exp(-2*epsilon)
	id, k := communityIndex(part)
	// For the current s (stamp s+1): a community's count of s's
	// neighbours in it, −1 for s's own and those at distance 2 (slices by
	// community index rather than a map: the map was most of the bound).
	stamp, count := make([]int32, k), make([]int32, k)
	for s := 0; s < g.N(); s++ {
		mark := int32(s + 1)
		stamp[id[s]], count[id[s]] = mark, -1
		n1, n2 := 0, 0
		nbrs := col[rowPtr[s]:rowPtr[s+1]]
		for _, t := range nbrs {
			if c := id[t]; stamp[c] != mark {
				stamp[c], count[c] = mark, 1
				n1++
			} else if count[c] > 0 {
				count[c]++
			}
		}
		for _, t := range nbrs {
			if c := count[id[t]]; c > 0 {
				term(s, int(t), e1/float64(c))
			}
		}
		for _, v := range nbrs {
			for _, u := range col[rowPtr[v]:rowPtr[v+1]] {
				if c := id[u]; stamp[c] != mark {
					stamp[c], count[c] = mark, -1
					term(s, int(u), e2)
					n2++
				}
			}
		}
		row(s, 1+delta*(float64(n1)*e1+float64(n2)*(e1+e2)))
	}
}

// communityIndex returns every node's community as an index 0..k−1 (in
// order of the ids) and k.
func communityIndex(part []int) ([]int32, int) {
	ids := slices.Clone(part)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	id := make([]int32, len(part))
	for v, c := range part {
		i, _ := slices.BinarySearch(ids, c)
		id[v] = int32(i)
	}
	return id, len(ids)
}

// starMatrix holds a constraint matrix explicitly (row s: the
// representatives u and their weights a; the diagonal 1 is implicit) for
// the subgradient descent on the dual.
type starMatrix struct {
	b      []float64
	rowPtr []int
	next   []int // while it is filled (add): each row's next entry
	u      []int32
	a      []float32
	ch     rowChunks // set on first use (one chunk) unless set before
	under  []uint8   // the gradient's cov[u] < 1 (uncovered): 1, else 0
}

// maxStarEntries bounds the explicit matrix (8 bytes an entry).
const maxStarEntries = 1 << 25

// newStarMatrix allocates the matrix whose row s will hold count[s+1]
// entries (count[0] = 0; it becomes the row pointers), or returns nil when
// that is more than maxStarEntries entries. add fills it row by row.
func newStarMatrix(count []int, b []float64) *starMatrix {
	n := len(count) - 1
	for s := 0; s < n; s++ {
		count[s+1] += count[s]
	}
	total := count[n]
	if total > maxStarEntries {
		return nil
	}
	return &starMatrix{b: b, rowPtr: count, next: slices.Clone(count[:n]), u: make([]int32, total), a: make([]float32, total),
		ch: newRowChunks(n, routedChunks)}
}

// add puts the entry a of p_u in row s.
func (m *starMatrix) add(s, u int, a float64) {
	m.u[m.next[s]] = int32(u)
	// Rounded down: a smaller coefficient only weakens the constraint, so
	// the bound stays valid.
	m.a[m.next[s]] = math.Nextafter32(float32(a), 0)
	m.next[s]++
}

// value returns the dual bound f(y) = Σ b_s y_s + Σ_u max(0, 1 − cov_u(y))
// and fills cov.
func (m *starMatrix) value(y, cov []float64) float64 {
	if m.ch.bufs == nil {
		m.ch = newRowChunks(len(y), 1)
	}
	m.ch.coverage(y, cov, func(lo, hi int, buf []float64) {
		for s := lo; s < hi; s++ {
			ys := y[s]
			for e := m.rowPtr[s]; e < m.rowPtr[s+1]; e++ {
				buf[m.u[e]] += float64(m.a[e]) * ys
			}
		}
	})
	return dualValue(m.b, y, cov)
}

// uncovered returns under[u] = 1 where cov[u] < 1, else 0, in buf (grown
// to fit): the subgradients' test, read once per pair, kept in a byte a
// member so that their random reads stay in the first-level cache, and
// multiplied rather than branched on (the test is as good as random, and
// subtracting a·0 leaves the sum unchanged to the bit).
func uncovered(cov []float64, buf []uint8) []uint8 {
	if cap(buf) < len(cov) {
		buf = make([]uint8, len(cov))
	}
	buf = buf[:len(cov)]
	for u, c := range cov {
		buf[u] = 0
		if c < 1 {
			buf[u] = 1
		}
	}
	return buf
}

// dualLP is a packing LP Cp ≤ b, 0 ≤ p ≤ 1 (the diagonal of C is 1) seen
// through its dual f(y) = Σ b_s y_s + Σ_u max(0, 1 − (Cᵀy)_u).
type dualLP interface {
	// value returns f(y) and fills cov with Cᵀy.
	value(y, cov []float64) float64
	// gradient fills grad with a subgradient of f at the y whose Cᵀy is
	// cov, and returns its squared norm.
	gradient(cov, grad []float64) float64
}

// gradient: ∂f/∂y_s = b_s − Σ_{u uncovered} C_su.
func (m *starMatrix) gradient(cov, grad []float64) float64 {
	if m.ch.bufs == nil {
		m.ch = newRowChunks(len(grad), 1)
	}
	m.under = uncovered(cov, m.under)
	under := m.under
	return m.ch.sum(func(lo, hi int) float64 {
		norm := 0.0
		for s := lo; s < hi; s++ {
			g := m.b[s] - float64(under[s])
			us, as := m.u[m.rowPtr[s]:m.rowPtr[s+1]], m.a[m.rowPtr[s]:m.rowPtr[s+1]]
			for e, u := range us {
				g -= float64(as[e]) * float64(under[u])
			}
			grad[s] = g
			norm += g * g
		}
		return norm
	})
}

// descend runs projected subgradient steps on f from y ≥ 0 and returns
// the smallest f seen: every y ≥ 0 gives a valid bound, so the method
// needs no convergence to be sound.
func (m *starMatrix) descend(y []float64, steps int) float64 {
	f, _ := descendBest(context.Background(), m, y, steps)
	return f
}

// descendBest runs the descent on lp and also returns the y of the
// smallest f; it stops early (with a valid bound) when ctx is done.
func descendBest(ctx context.Context, lp dualLP, y []float64, steps int) (float64, []float64) {
	n := len(y)
	cov := make([]float64, n)
	grad := make([]float64, n)
	f := lp.value(y, cov) // at the current y; cov matches it
	best, bestY := f, slices.Clone(y)
	for k := 1; k <= steps && ctx.Err() == nil; k++ {
		norm := lp.gradient(cov, grad)
		if norm == 0 {
			break
		}
		// Polyak's step towards a target below the best bound so far.
		step := (f - 0.97*best) / norm
		for s := range y {
			y[s] = math.Max(0, y[s]-step*grad[s])
		}
		f = lp.value(y, cov)
		if f < best {
			best = f
			copy(bestY, y)
		}
	}
	return best, bestY
}

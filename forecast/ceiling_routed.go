package forecast

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/graphcloak/graphcloak/laplacian"
)

// routedCeiling bounds the mean with routed constraints. For a source s
// and a community o ≠ c(s), group privacy gives P(o | s) ≥
// e^{−ε·d(s,v)}·p_v − δ·S_{d(s,v)} for every member v of o, hence for any
// one of them: s may credit whichever member it likes. The star bound
// credits one nearest member, so every far source credits the same few
// members on o's boundary and the members nobody credits keep p = 1 in
// the relaxation. Here each member v carries a potential φ_v and s credits
// the member minimising φ_v + ε·d(s,v): raising the potential of members
// that are covered more than once sends the sources to members that are
// not, possibly a hop farther (a smaller coefficient, still a valid row).
// Each routing is a packing LP like the star bound's, bounded by the same
// dual descent; the mean of the last routedMix routings' rows (a
// fractional routing, which the integral rounds only alternate between)
// is bounded last. Every routing, every mean of rows and every y ≥ 0 give
// a valid bound, and the smallest is returned (1 where n·k is too large
// to hold the routes, or when ctx is done first).
func routedCeiling(ctx context.Context, g *laplacian.Graph, part []int, epsilon, delta float64) float64 {
	return routedBound(ctx, g, part, epsilon, delta, func(rs []*routes, delta float64) dualLP {
		if len(rs) > 1 {
			return mergedMean(rs, epsilon, delta)
		}
		return newPackedLP(rs[0], epsilon, delta, routedChunks)
	})
}

// routedBound is routedCeiling with the LP of one routing or of the mean
// of several built by lp at a δ. Only the last routedMix routings are kept
// (their buffers reused), 5 bytes a pair each.
//
// The routings and dual steps are those of δ = 0, and each y they reach is
// then valued at δ: f_δ(y) = f_0(y) + Σ_s y_s·(b_s(δ) − b_s(0)), the dual
// being linear in the right-hand sides b, which grow with δ. So the bound
// at δ is the smallest of functions that each grow with δ, and grows with
// δ too — a larger δ allows more, and a descent steered by δ's own rows
// could end lower at a larger δ (plan showed 0.712 at δ = 10⁻⁶, 0.707 at
// 10⁻⁵ on one graph).
func routedBound(ctx context.Context, g *laplacian.Graph, part []int, epsilon, delta float64, lp func([]*routes, float64) dualLP) float64 {
	n := g.N()
	members := communityMembers(part)
	k := len(members)
	if n*k > maxRoutedPairs || k < 2 {
		return 1
	}
	sched := scheduleFor(n * k)
	phi := make([]float64, n)
	best := 1.0
	var y []float64
	ring := make([]*routes, routedMix)
	for round := range routedRounds {
		r := newRoutes(ctx, ring[round%routedMix], g, part, members, phi, epsilon)
		ring[round%routedMix] = r
		if ctx.Err() != nil {
			return best
		}
		if y == nil {
			y = make([]float64, n)
			for s := range y {
				y[s] = 1 / (1 + r.weight[s])
			}
		}
		steps := sched.first
		if round > 0 {
			steps = sched.after
		}
		f, yBest := descendBest(ctx, lp([]*routes{r}, 0), y, steps)
		best = math.Min(best, (f+dot(deltaRHS([]*routes{r}, epsilon, delta), yBest))/float64(n))
		y = yBest
		if round == routedRounds-1 {
			break
		}
		// Members covered more than once repel their sources, members
		// covered less attract them (a step of at most η·ε, shrinking).
		eta := routedEta / (1 + float64(round)/2) * epsilon
		for v, c := range r.coverage(y, epsilon) {
			phi[v] += eta * math.Max(-1, math.Min(1, math.Log(math.Max(c, 1e-3))))
		}
	}
	// The kept routings, oldest first.
	var recent []*routes
	for i := range routedMix {
		if r := ring[(routedRounds+i)%routedMix]; r != nil {
			recent = append(recent, r)
		}
	}
	mix := lp(recent, 0)
	beta := deltaRHS(recent, epsilon, delta)
	clear(ring) // the mean's LP and beta hold what they need
	f, yMix := descendBest(ctx, mix, y, sched.mix)
	return math.Min(best, (f+dot(beta, yMix))/float64(n))
}

// deltaRHS is b(δ) − b(0) for the rows of the mean of rs (nil at δ = 0):
// what δ adds to the dual's value at y is its dot product with y.
func deltaRHS(rs []*routes, epsilon, delta float64) []float64 {
	if delta == 0 {
		return nil
	}
	bd, b0 := routedRHS(rs, epsilon, delta), routedRHS(rs, epsilon, 0)
	for s := range bd {
		bd[s] -= b0[s]
	}
	return bd
}

// dot is Σ a_i·b_i (0 for a nil a).
func dot(a, b []float64) float64 {
	var sum float64
	for i, v := range a {
		sum += v * b[i]
	}
	return sum
}

// hopDecay returns e^{−ε·d} for every hop count d a route can have
// (0..maxFarHops).
func hopDecay(epsilon float64) []float64 {
	decay := make([]float64, maxFarHops+1)
	for d := range decay {
		decay[d] = math.Exp(-epsilon * float64(d))
	}
	return decay
}

// coverage returns, for budgets y, every member's coverage: its own y
// plus y_s·e^{−ε·d} from every source s routed to it.
func (r *routes) coverage(y []float64, epsilon float64) []float64 {
	cov := slices.Clone(y)
	decay := hopDecay(epsilon)
	for i, v := range r.origin {
		if v >= 0 {
			cov[v] += y[i/r.k] * decay[r.hops[i]]
		}
	}
	return cov
}

// The routed bound's schedule: rounds of routing, dual steps per routing,
// the potential step (in units of ln coverage) and how many of the last
// routings are averaged. Measured on an LFR graph of 2·10⁴ nodes and 300
// communities at ε = 0.5: 3.66% after 30 rounds without the mean, 2.61%
// with the mean of the last 4, 2.64% after 16 rounds with the last 8
// (the star bound: 9.0%).
const (
	routedRounds   = 16
	routedEta      = 0.5
	maxRoutedPairs = 1 << 27
	routedMix      = 4
)

// routedSchedule is the number of dual steps of the first routing, of
// each later one (warm-started) and of the mean.
type routedSchedule struct{ first, after, mix int }

// routedLargePairs is the n·k above which the routed bound takes the
// short schedule.
var routedLargePairs = 1 << 24

// scheduleFor returns the schedule for n·k pairs: each dual step reads
// every pair twice, so above routedLargePairs the steps are cut by 3
// (measured on lfr20k-0.4 forced onto the short schedule: see
// docs/guarantee.md, Routed rows).
func scheduleFor(pairs int) routedSchedule {
	if pairs > routedLargePairs {
		return routedSchedule{first: 100, after: 20, mix: 200}
	}
	return routedSchedule{first: 300, after: 60, mix: 300}
}

// communityMembers groups the nodes by community (communities in order of
// their ids).
func communityMembers(part []int) [][]int32 {
	byID := map[int][]int32{}
	for v, c := range part {
		byID[c] = append(byID[c], int32(v))
	}
	ids := make([]int, 0, len(byID))
	for c := range byID {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	out := make([][]int32, len(ids))
	for i, c := range ids {
		out[i] = byID[c]
	}
	return out
}

// routes holds, for every source s and community index o, the member
// s credits and its hop distance (−1: none within maxFarHops, or o is s's
// own community).
type routes struct {
	n, k   int
	origin []int32
	hops   []int8
	weight []float64 // Σ of the coefficients each member receives
}

// newRoutes routes every source to one member of every community: a
// multi-source search per community whose sources start at their
// potentials and pay ε a hop (the smallest tentative value is always at the
// head of the members sorted by potential or of the FIFO queue, whose
// values never decrease, so each node is settled once).
func newRoutes(ctx context.Context, r *routes, g *laplacian.Graph, part []int, members [][]int32, phi []float64, epsilon float64) *routes {
	n, k := g.N(), len(members)
	if r == nil {
		r = &routes{n: n, k: k, origin: make([]int32, n*k), hops: make([]int8, n*k)}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), k))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sr := newRouteSearch(g, phi, epsilon)
			for o := range next {
				if ctx.Err() != nil {
					continue // drain: the caller returns on ctx.Err()
				}
				sr.run(members[o])
				for s := range n {
					i := s*k + o
					if part[s] == part[members[o][0]] {
						r.origin[i], r.hops[i] = -1, -1
						continue
					}
					r.origin[i], r.hops[i] = sr.org[s], sr.hop[s]
				}
			}
		}()
	}
	for o := range k {
		next <- o
	}
	close(next)
	wg.Wait()
	r.weight = make([]float64, n)
	decay := hopDecay(epsilon)
	for i, v := range r.origin {
		if v >= 0 {
			r.weight[v] += decay[r.hops[i]]
		}
	}
	return r
}

// routeSearch is one worker's state for the search of newRoutes: every
// node's value, hop count and the member it was reached from.
type routeSearch struct {
	rowPtr  []int64
	col     []int32
	phi     []float64
	epsilon float64
	val     []float64
	hop     []int8
	org     []int32
	done    []bool
	queue   []int32
}

func newRouteSearch(g *laplacian.Graph, phi []float64, epsilon float64) *routeSearch {
	n := g.N()
	rowPtr, col, _ := g.CSR()
	return &routeSearch{rowPtr: rowPtr, col: col, phi: phi, epsilon: epsilon, val: make([]float64, n),
		hop: make([]int8, n), org: make([]int32, n), done: make([]bool, n), queue: make([]int32, 0, n)}
}

// run searches from the members of one community, each starting at its
// potential.
func (sr *routeSearch) run(members []int32) {
	for i := range sr.val {
		sr.val[i], sr.hop[i], sr.org[i], sr.done[i] = math.Inf(1), -1, -1, false
	}
	phi := sr.phi
	src := slices.Clone(members)
	slices.SortFunc(src, func(a, b int32) int { return cmp.Or(cmp.Compare(phi[a], phi[b]), cmp.Compare(a, b)) })
	for _, v := range src {
		sr.val[v], sr.hop[v], sr.org[v] = phi[v], 0, v
	}
	sr.queue = sr.queue[:0]
	head, nx := 0, 0
	for {
		var u int32
		switch {
		case nx < len(src) && (head == len(sr.queue) || phi[src[nx]] <= sr.val[sr.queue[head]]):
			u = src[nx]
			nx++
			if sr.org[u] != u {
				continue // reached from a member with a smaller value
			}
		case head < len(sr.queue):
			u = sr.queue[head]
			head++
		default:
			return
		}
		sr.settle(u)
	}
}

// settle fixes u's value and relaxes its neighbours.
func (sr *routeSearch) settle(u int32) {
	if sr.done[u] {
		return
	}
	sr.done[u] = true
	if sr.hop[u] >= maxFarHops {
		return
	}
	// Nodes settle in order of value, so a settled v has val[v] ≤ val[u] ≤ nv
	// and fails the test without looking at done (one load an edge less).
	nv := sr.val[u] + sr.epsilon
	for _, v := range sr.col[sr.rowPtr[u]:sr.rowPtr[u+1]] {
		if nv < sr.val[v] {
			sr.val[v], sr.hop[v], sr.org[v] = nv, sr.hop[u]+1, sr.org[u]
			sr.queue = append(sr.queue, v)
		}
	}
}

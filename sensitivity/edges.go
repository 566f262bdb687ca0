package sensitivity

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// edgeClass is a set of edges with equal q_e by symmetry, represented by
// the edge (i, j); u is the cheap proven bound on q_e.
type edgeClass struct {
	i, j int
	size int
	u    float64
	lo   float64 // a proven lower bound on q_e (jensenLower)
	hint float64 // degree ratio (≥ 1): a leaf on a hub first
	slow float64 // how large q_e is likely to be behind a bridge (lanczosHint)
	trap float64 // how much heat one end keeps next to the other (trapScore)
	// foreign: another shard's class (GraphShard); refined here only as a
	// seed, for the lower bound it proves, and left out of this shard's maximum.
	foreign bool
}

// edgeClasses groups the edges into classes of equal q_e: swapping two
// false twins (falseTwins: equal weighted neighbour lists) is a
// weight-preserving automorphism of the graph, so every edge between the
// twin classes of i and j has the same q_e as (i, j).
func edgeClasses(g *laplacian.Graph, tau float64, cut cutoff) []edgeClass {
	return edgeClassesKnown(g, tau, nil, cut)
}

// edgeClassesKnown is edgeClasses whose upper bounds, with known set, are
// its brackets (Options.Known) instead of the cheap bounds: each class
// gets the intersection of its edges' brackets (they share one q_e).
func edgeClassesKnown(g *laplacian.Graph, tau float64, known KnownTerms, cut cutoff) []edgeClass {
	var fp laplacian.Fingerprint
	if known == nil {
		fp = g.Fingerprint()
		if cl := classMemo.get(fp, tau); cl != nil {
			return cl
		}
	}
	tw := falseTwins(g)
	side := bridgeSides(g)
	trap := heatTrap(g)
	byPair := make(map[[2]int]int)
	var cl []edgeClass
	var ws []float64
	g.ForEachEdge(func(i, j int, w float64) {
		ri, rj := tw.rep[i], tw.rep[j]
		if ri > rj {
			ri, rj = rj, ri
		}
		// An edge between two nodes without twins is a class of its own:
		// only edges touching a twin class are looked up.
		key, alone := [2]int{ri, rj}, tw.cnt[ri] == 1 && tw.cnt[rj] == 1
		c, ok := 0, false
		if !alone {
			c, ok = byPair[key]
		}
		if ok {
			cl[c].size++
		} else {
			c = len(cl)
			if !alone {
				byPair[key] = c
			}
			lo, hi := math.Min(g.Degree(i), g.Degree(j)), math.Max(g.Degree(i), g.Degree(j))
			cl = append(cl, edgeClass{i: i, j: j, size: 1, lo: jensenLower(g, i, j, w, tau), u: math.Inf(1),
				hint: hi / lo, slow: lanczosHint(i, j, w, tau, side), trap: trapScore(trap, i, j)})
			ws = append(ws, w)
		}
		if known != nil {
			if lo, up, ok := known(i, j); ok {
				cl[c].lo, cl[c].u = math.Max(cl[c].lo, lo), math.Min(cl[c].u, up)
			}
		}
	})
	if known != nil {
		return cl
	}
	cheapBounds(g, tau, side, len(cl), func(c int) (int, int, float64) { return cl[c].i, cl[c].j, ws[c] },
		func(c int, u float64) { cl[c].u = u }, cut)
	if !cut.passed() { // every bound the full one
		classMemo.put(fp, tau, cl)
	}
	return cl
}

// classMemo keeps the edge classes with their cheap bounds last computed
// in full (edgeClasses): ChooseMethod's cost model computes them, then the
// run on the same graph (in the same local order) and τ needs them again —
// about 1 s of the 10 s sensitivity takes on e-mail Enron. One entry, keyed
// by the graph's fingerprint and τ; callers get their own copy.
var classMemo edgeClassMemo

type edgeClassMemo struct {
	mu  sync.Mutex
	fp  laplacian.Fingerprint
	tau float64
	cl  []edgeClass
}

func (m *edgeClassMemo) get(fp laplacian.Fingerprint, tau float64) []edgeClass {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cl == nil || m.fp != fp || m.tau != tau {
		return nil
	}
	return slices.Clone(m.cl)
}

func (m *edgeClassMemo) put(fp laplacian.Fingerprint, tau float64, cl []edgeClass) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fp, m.tau, m.cl = fp, tau, slices.Clone(cl)
}

// cheapBounds sets the cheap bound (cheapEdgeBound) of edges 0..m−1, given
// by edge, in parallel: each worker has its own resistance workspace and
// takes chunks of cheapChunk edges until none is left. Past the deadline
// (zero: none) the edges left get the O(1) bound ψ(1/w) instead (an edge's
// resistance is at most 1/w), so that a time budget also bounds this phase.
func cheapBounds(g *laplacian.Graph, tau float64, side map[[2]int]bridgeSide, m int, edge func(k int) (i, j int, w float64), set func(k int, u float64), cut cutoff) {
	workers := min(runtime.GOMAXPROCS(0), max(1, m/1024))
	var next atomic.Int64 // the next chunk of cheapChunk edges
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw := newResistanceWork(g)
			for {
				lo := int(next.Add(cheapChunk)) - cheapChunk
				if lo >= m {
					return
				}
				late := cut.passed()
				for k := lo; k < min(lo+cheapChunk, m); k++ {
					i, j, w := edge(k)
					if late {
						set(k, math.Min(2, resistanceEdgeBound(1/w, tau))*roundUp+absSlack)
						continue
					}
					set(k, cheapEdgeBound(g, rw, side, i, j, w, tau))
				}
			}
		}()
	}
	wg.Wait()
}

// cheapChunk is the number of edges a worker of cheapBounds takes at a
// time: the bounds of a hub's edges cost more, and hubs lie together.
const cheapChunk = 256

// jensenLower is a proven lower bound on q_e: the spectral measure of b_e
// has mass 2 and mean b_eᵀLb_e/2 = (d_i + d_j + 2w_ij)/2, and e^{−2τx} is
// convex, so by Jensen q_e ≥ 2e^{−τ(d_i + d_j + 2w_ij)}. Its maximum over
// the edges starts the pruning floor before any Lanczos step (on the AS
// graph at τ = 0.1 it is 1.213 against the true maximum 1.232).
func jensenLower(g *laplacian.Graph, i, j int, w, tau float64) float64 {
	return 2 * math.Exp(-tau*(g.Degree(i)+g.Degree(j)+2*w)*(1+4*roundoffU)) * (1 - 4*roundoffU)
}

// lanczosSeeds is the number of classes refined first by each of the three
// hints (degree ratio, bridge, heat trap), so that a good lower bound prunes the rest
// early.
const lanczosSeeds = 8

// lanczosDeepSlots is the number of recurrences per block in the second
// pass over the classes the memory cap cut short: a quarter of a block,
// so each may keep four times as many Krylov vectors.
const lanczosDeepSlots = 4

// lanczosHint guesses how large q_e is at large τ, to find the maximiser
// early (it only chooses seeds). The slowest heat is trapped behind a
// bridge: for a bridge of weight w whose smaller side has s nodes, b_e
// projects with weight about 1/s on a mode of rate about w/s, so
// q_e ≈ e^{−2τw/s}/s (on the AS graph at τ = 10 the maximiser is a bridge
// with s = 8, and this guess is 0.0103 against 0.0094). Edges on cycles get 0.
func lanczosHint(i, j int, w, tau float64, side map[[2]int]bridgeSide) float64 {
	if b, ok := side[[2]int{min(i, j), max(i, j)}]; ok {
		return math.Exp(-2*tau*w/float64(b.small)) / float64(b.small)
	}
	return 0
}

// heatTrap returns, for every node v, s_v = Σ_k w_vk²/(d_v d_k): the
// chance that the jump chain of the heat walk (from v to a neighbour k with
// probability w_vk/d_v) is back at v after two jumps. Heat stays near a node
// whose neighbours have few other neighbours, and ‖exp(−τL)e_v‖ is then
// large: on LFR 10⁵ (mixing 0.3) at τ = 1 the largest √q_e among the 32
// edges with the largest trapScore is 0.0104, 2.3× that among the 32 with
// the smallest degree sum (the Jensen order) and 5.2× that among the 32
// with the largest degree ratio.
func heatTrap(g *laplacian.Graph) []float64 {
	s := make([]float64, g.N())
	for v := range s {
		cols, ws := g.Neighbors(v)
		for k, c := range cols {
			w := 1.0
			if ws != nil {
				w = ws[k]
			}
			s[v] += w * w / g.Degree(int(c))
		}
		if d := g.Degree(v); d > 0 {
			s[v] /= d
		}
	}
	return s
}

// trapScore ranks the edge (i, j) as a candidate maximiser of q_e from the
// heatTrap values s: the larger end, less a quarter of the smaller, since
// e_i − e_j keeps its norm where one end holds its heat and the other end
// does not (it only orders candidates; nothing is proven from it).
func trapScore(s []float64, i, j int) float64 {
	return math.Max(s[i], s[j]) - math.Min(s[i], s[j])/4
}

// bridgeSide is the number of nodes on each side of a bridge, small ≤ large.
type bridgeSide struct{ small, large int }

// bridgeSides returns, for every bridge (i < j) of g, the number of nodes
// on each side, by one iterative depth-first search per component
// (Tarjan: a tree edge p→c is a bridge iff no back edge from c's subtree
// reaches p or above; c's side has the subtree's size).
func bridgeSides(g *laplacian.Graph) map[[2]int]bridgeSide {
	n := g.N()
	disc := make([]int32, n)
	low := make([]int32, n)
	sub := make([]int32, n)
	parent := make([]int32, n)
	pos := make([]int32, n) // next neighbour to visit
	_, comp := g.Components()
	compSize := map[int32]int{}
	for _, c := range comp {
		compSize[c]++
	}
	out := map[[2]int]bridgeSide{}
	clock := int32(0)
	var stack []int32
	for root := 0; root < n; root++ {
		if disc[root] != 0 {
			continue
		}
		clock++
		disc[root], low[root], sub[root], parent[root] = clock, clock, 1, -1
		stack = append(stack[:0], int32(root))
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			cols, _ := g.Neighbors(int(v))
			if int(pos[v]) < len(cols) {
				c := cols[pos[v]]
				pos[v]++
				switch {
				case disc[c] == 0:
					clock++
					disc[c], low[c], sub[c], parent[c] = clock, clock, 1, v
					stack = append(stack, c)
				case c != parent[v]:
					low[v] = min(low[v], disc[c])
				}
				continue
			}
			stack = stack[:len(stack)-1]
			if p := parent[v]; p >= 0 {
				low[p] = min(low[p], low[v])
				sub[p] += sub[v]
				if low[v] > disc[p] {
					s := int(sub[v])
					r := compSize[comp[v]] - s
					out[[2]int{min(int(p), int(v)), max(int(p), int(v))}] = bridgeSide{min(s, r), max(s, r)}
				}
			}
		}
	}
	return out
}

// lanczosGraphSensitivity certifies Δ2 with a Lanczos bracket per edge
// class (edgeClasses, lanczosWork), pruned against the best proven lower
// bound of the maximum:
//
//  1. Classes are visited by decreasing cheap bound U_e, ties broken by the
//     hint (a low-degree endpoint on a high-degree node: a leaf on a hub is
//     the usual maximiser from τ ≈ 0.5 on), after the seeds (the classes
//     with the strongest hints), which are settled first, a second deeper
//     pass included, so that the lower bound they give prunes the rest.
//  2. A class whose U_e is at most the best lower bound is settled; any
//     other is refined until its upper bound drops to the best lower bound
//     (pruned) or its bracket is narrow.
//  3. Δ2 is α·max over classes of the upper bound (U_e for classes not
//     reached before the time budget ended), a proven upper bound in every
//     case; the best lower bound gives the slack. Exact when every class
//     was settled.
//
// Workers take classes in this order from a shared counter and share the
// best lower bound; the calling goroutine reports progress.
func lanczosGraphSensitivity(g *laplacian.Graph, tau, alpha float64, opt Options, s Result) Result {
	start := time.Now()
	// The cheap bounds may take a quarter of a time budget.
	cl := edgeClassesKnown(g, tau, opt.Known, newCutoff(start, opt.TimeBudget/4, opt.Done))
	opt.shard.markClasses(cl)
	order, seeds := lanczosOrder(cl)

	workers := runtime.GOMAXPROCS(0)
	op := newTwinOp(g)
	kmax := lanczosMaxSteps(op.g, workers*columnBlock)
	deadline := newCutoff(start, opt.TimeBudget, opt.Done)
	lo := make([]float64, len(cl))
	up := make([]float64, len(cl))
	done := make([]atomic.Bool, len(cl))
	var bestLo atomicMax // the best lower bound on max q_e
	floor, raise := bestLo.load, bestLo.raise
	radau := newRadauFilter(g, tau)
	secondPass := false
	var refined atomic.Int64    // classes run through Lanczos (the ETA's rate)
	var refinedAll atomic.Int64 // and since the start, seeds included (progress)
	settle := func(c int, l, u float64) {
		lo[c], up[c] = l, u
		done[c].Store(true)
	}
	taker := func(list []int, known func(c int) (l, u float64)) func() (c, i, j int, ok bool) {
		// (The deep pass's classes have Lanczos brackets already.)
		return classTaker(list, cl, known, !secondPass, radau, floor, settle, deadline)
	}
	// Classes cut short by the memory cap (deep) get a second pass with
	// fewer recurrences per block and so more steps each; until then they
	// keep their first bracket: deepLo (worker-written, read after the
	// pass) and deepUp (atomic bits, as the anytime report reads it
	// meanwhile; 0 until set, read as +Inf).
	deepLo := make([]float64, len(cl))
	deepUp := make([]atomic.Uint64, len(cl))
	firstUp := func(c int) float64 {
		if b := deepUp[c].Load(); b != 0 {
			return math.Float64frombits(b)
		}
		return math.Inf(1)
	}
	var deep []int
	var deepMu sync.Mutex
	finish := func(c int, l, u float64, cut bool) {
		// A bracket cut short by the deadline may be looser than U_e; two
		// brackets of one class intersect.
		l, u = math.Max(l, deepLo[c]), math.Min(u, math.Sqrt(cl[c].u))
		if secondPass {
			u = math.Min(u, firstUp(c))
		}
		raise(l * l * (1 - 4*roundoffU))
		refined.Add(1)
		refinedAll.Add(1)
		if cut && !secondPass {
			deepLo[c] = l
			deepUp[c].Store(math.Float64bits(u))
			deepMu.Lock()
			deep = append(deep, c)
			deepMu.Unlock()
			return
		}
		settle(c, l, u)
	}
	var refining time.Time // when the pass after the seeds started
	units := lanczosUnits{start: start}
	var smooth etaSmoother
	report := func() {
		if opt.Progress == nil && opt.Status == nil {
			return
		}
		certified, left := lanczosProgress(cl, lo, up, done, floor())
		if opt.Progress != nil {
			if d, t, ok := units.of(refining, int(refinedAll.Load()), int(refined.Load()), left); ok {
				opt.Progress(d, t)
			}
		}
		if opt.Status != nil {
			var eta time.Duration
			if !refining.IsZero() {
				eta = remainingTime(time.Since(refining), int(refined.Load()), left)
			}
			eta = smooth.update(time.Since(start), eta)
			opt.Status(Interim{Edges: g.NumEdges(), EdgesCertified: certified,
				Delta2: roundUpDelta(alpha * lanczosUpper(cl, up, done, deepUp) * (1 + 2*roundoffU)), Elapsed: time.Since(start), ETA: eta})
		}
	}
	for c := range cl {
		raise(cl[c].lo)
	}
	units.seeds = lanczosAbove(cl, order[:seeds], floor())
	report() // the cheap bounds alone
	run := func(kmax, slots int, take func() (c, i, j int, ok bool)) {
		runWorkers(workers, func() {
			newLanczosBlock(op, tau, kmax).refine(slots, take, floor, finish, deadline)
		}, report)
	}
	// deepPass reruns the classes cut short so far, longest first.
	deepPass := func() {
		if len(deep) == 0 {
			return
		}
		sort.Slice(deep, func(a, b int) bool { return firstUp(deep[a]) > firstUp(deep[b]) })
		first := func(c int) (float64, float64) { return deepLo[c], firstUp(c) }
		secondPass = true
		run(lanczosMaxSteps(op.g, workers*lanczosDeepSlots), lanczosDeepSlots, taker(deep, first))
		for _, c := range deep {
			if !done[c].Load() { // not reached before the deadline: not settled
				lo[c], up[c] = first(c)
				done[c].Store(true)
			}
		}
		deep, secondPass = nil, false
	}
	// The seeds first, with their deep pass at once: the maximiser is
	// often a seed whose recurrence the memory cap cuts short (on the PGP
	// web of trust at τ = 10), and until its bracket is known every class
	// above the running lower bound is refined for nothing.
	cheap := func(c int) (float64, float64) { return 0, math.Sqrt(cl[c].u) }
	run(kmax, columnBlock, taker(order[:seeds], cheap))
	deepPass()
	// The ETA's rate is that of this pass: the seeds are the most
	// expensive classes (on the AS graph at τ = 10 their rate predicted
	// 455 s where 73 s were left).
	refining = time.Now()
	refined.Store(0)
	run(kmax, columnBlock, taker(opt.shard.ownClasses(cl, order[seeds:]), cheap))
	deepPass()
	units.final = true
	report()
	return lanczosResult(cl, lo, up, done, floor(), alpha, opt.Known != nil, s)
}

// classTaker hands out the classes of list in order, settling at once each
// whose known bracket (known) is already below the best lower bound
// floor(); with useRadau a bracket above it is first narrowed by radau.
func classTaker(list []int, cl []edgeClass, known func(c int) (l, u float64), useRadau bool, radau *radauFilter,
	floor func() float64, settle func(c int, l, u float64), deadline cutoff) func() (c, i, j int, ok bool) {
	var next atomic.Int64
	return func() (c, i, j int, ok bool) {
		for {
			k := int(next.Add(1) - 1)
			if k >= len(list) || deadline.passed() {
				return 0, 0, 0, false
			}
			c := list[k]
			l, u := known(c)
			if u*u > floor() && useRadau {
				u = math.Min(u, radau.root(cl[c].i, cl[c].j, floor()))
			}
			if u*u > floor() {
				return c, cl[c].i, cl[c].j, true
			}
			settle(c, l, u)
		}
	}
}

// atomicMax is a float64 that only grows, shared by the workers; its zero
// value is 0.
type atomicMax struct{ bits atomic.Uint64 }

func (m *atomicMax) load() float64 { return math.Float64frombits(m.bits.Load()) }

// raise sets the value to q if q is larger.
func (m *atomicMax) raise(q float64) {
	for {
		old := m.bits.Load()
		if q <= math.Float64frombits(old) || m.bits.CompareAndSwap(old, math.Float64bits(q)) {
			return
		}
	}
}

// runWorkers runs work on workers goroutines and calls report every
// 250 ms until they have all returned.
func runWorkers(workers int, work func(), report func()) {
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-finished:
			waiting = false
		case <-tick.C:
			report()
		}
	}
}

// lanczosOrder sorts cl by decreasing cheap bound, ties by decreasing
// degree ratio, and returns the visiting order: the seeds, the
// lanczosSeeds classes with the largest degree ratio, the lanczosSeeds
// with the strongest bridge hint and the lanczosSeeds with the largest
// trapScore, first (their number is seeds), then the rest in sorted order.
func lanczosOrder(cl []edgeClass) (order []int, seeds int) {
	sort.Slice(cl, func(a, b int) bool {
		if cl[a].u != cl[b].u {
			return cl[a].u > cl[b].u
		}
		return cl[a].hint > cl[b].hint
	})
	// Each key's first lanczosSeeds, ties broken by the keys before it and
	// then by place: the order stable sorts by hint, then slow, then trap
	// would give, found in one pass each.
	byHint := func(a, b int) int {
		if c := cmp.Compare(cl[b].hint, cl[a].hint); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	bySlow := func(a, b int) int {
		if c := cmp.Compare(cl[b].slow, cl[a].slow); c != 0 {
			return c
		}
		return byHint(a, b)
	}
	byTrap := func(a, b int) int {
		if c := cmp.Compare(cl[b].trap, cl[a].trap); c != 0 {
			return c
		}
		return bySlow(a, b)
	}
	order = append(order, firstK(len(cl), lanczosSeeds, byHint)...)
	seed := make(map[int]bool, 3*lanczosSeeds)
	for _, c := range order {
		seed[c] = true
	}
	for _, c := range firstK(len(cl), lanczosSeeds, bySlow) {
		if !seed[c] && cl[c].slow > 0 {
			seed[c] = true
			order = append(order, c)
		}
	}
	for _, c := range firstK(len(cl), lanczosSeeds, byTrap) {
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

// firstK returns the first k of 0..n−1 in the order compare gives (a total
// order), in that order: what sorting them all and keeping k would give,
// in O(n) comparisons for the small k used here.
func firstK(n, k int, compare func(a, b int) int) []int {
	if k <= 0 {
		return nil
	}
	top := make([]int, 0, k+1)
	for i := range n {
		if len(top) == k && compare(i, top[k-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, i, compare)
		top = slices.Insert(top, at, i)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// lanczosUnits counts the Lanczos scheme's progress in units of work,
// not edges: one a class run through Lanczos (a deep pass's rerun counted
// again) or still to refine. Counted in edges it sat at 99 % while the
// exact step, most of the time, was ahead (issue 79: on astro-ph the
// cheap bounds and the seeds prove 99 % of the edges in 2 s of 8). The
// classes left are counted only once the seeds have raised the best lower
// bound: before, every class above the cheap bounds' (32 778 on astro-ph,
// where 985 were refined) made the first ETA 30× too long. The first
// report, after the cheap bounds, counts them as one unit and the seeds
// as the work known to be left. The work before a mark — the cheap
// bounds, the seeds and the first lanczosRateClasses classes of the pass
// after them, its loosest and slowest — then becomes as many units as its
// time buys at the pass's rate since the mark, once lanczosRateClasses
// more have run: a step's ETA, elapsed·(total − done)/done, is then the
// classes left at that rate (astro-ph, load 20 on 2 cores: 15.5 s told
// 5.7 s in, 9.3 s taken, where the first ETA had been 30× too long).
type lanczosUnits struct {
	start time.Time // Δ2's
	seeds int       // seed classes above the cheap bounds' floor
	first bool      // the first report is made
	final bool      // the last report: every class is run or settled
	// mark is when the pass after the seeds had refined marked classes
	// (zero: not yet); pre the units of the work before it, once priced.
	mark   time.Time
	marked int
	pre    int
}

// lanczosRateClasses is how many classes of the pass after the seeds run
// before the mark, and after it before the pass's rate prices the work
// before the mark.
const lanczosRateClasses = 64

// of is the progress (done, total) to report with refinedAll classes run
// through Lanczos since the start, refined since the pass after the seeds
// began at main (zero: not yet) and left to refine; ok is false while the
// units cannot yet be priced (after the first report, before the rate).
func (u *lanczosUnits) of(main time.Time, refinedAll, refined, left int) (done, total int, ok bool) {
	now := time.Now()
	if !main.IsZero() && u.mark.IsZero() && refined >= lanczosRateClasses {
		u.mark, u.marked = now, refined
	}
	switch after := refined - u.marked; {
	case !u.first:
		u.first = true
		return 1, 1 + u.seeds, true
	case !u.mark.IsZero() && after >= lanczosRateClasses:
		// The units only grow (the pass speeds up): done never falls.
		rate := float64(after) / max(now.Sub(u.mark).Seconds(), 1e-9)
		u.pre = max(u.pre, 1, int(math.Round(u.mark.Sub(u.start).Seconds()*rate)))
	case u.final && u.pre == 0:
		u.pre = 1 + refinedAll - after
	case u.pre == 0:
		return 0, 0, false
	}
	return u.pre + refined - u.marked, u.pre + refined - u.marked + left, true
}

// lanczosAbove counts the classes of list whose cheap bound is above floor.
func lanczosAbove(cl []edgeClass, list []int, floor float64) int {
	n := 0
	for _, c := range list {
		if cl[c].u > floor {
			n++
		}
	}
	return n
}

// lanczosProgress counts the edges certified so far (lanczosSettled) and
// the classes still to refine: neither settled nor below floor by their
// cheap bound.
func lanczosProgress(cl []edgeClass, lo, up []float64, done []atomic.Bool, floor float64) (certified, left int) {
	for c := range cl {
		switch {
		case cl[c].foreign: // another shard's
			certified += cl[c].size
		case lanczosSettled(cl, lo, up, done, c, floor):
			certified += cl[c].size
		case !done[c].Load():
			left++
		}
	}
	return certified, left
}

// lanczosSettled reports whether class c's term is certified against the
// best lower bound floor on max q_e: its bracket (when done) or its cheap
// bound lies below floor, or its bracket is narrow. A class the deadline
// cut short is done but not settled.
func lanczosSettled(cl []edgeClass, lo, up []float64, done []atomic.Bool, c int, floor float64) bool {
	if !done[c].Load() {
		return cl[c].u <= floor
	}
	return up[c]*up[c] <= floor || up[c]-lo[c] <= ExactRelativeSlack*up[c]
}

// lanczosUpper is the current proven upper bound on max ‖exp(−τL)b_e‖:
// the refined upper bounds, and for classes not yet done √U_e or, for one
// the memory cap cut short, its first bracket's upper end (cut, bits of a
// float64; 0 when there is none).
func lanczosUpper(cl []edgeClass, up []float64, done []atomic.Bool, cut []atomic.Uint64) float64 {
	best := 0.0
	for c := range cl {
		if cl[c].foreign {
			continue
		}
		v := math.Sqrt(cl[c].u)
		switch {
		case done[c].Load():
			v = up[c]
		case cut[c].Load() != 0:
			v = math.Min(v, math.Float64frombits(cut[c].Load()))
		}
		best = math.Max(best, v)
	}
	return best
}

// lanczosResult turns the brackets into Δ2 (see lanczosGraphSensitivity).
func lanczosResult(cl []edgeClass, lo, up []float64, done []atomic.Bool, qLo, alpha float64, known bool, s Result) Result {
	best, arg := -1.0, 0
	all := true
	for c := range cl {
		if cl[c].foreign {
			continue
		}
		v := math.Sqrt(cl[c].u)
		if done[c].Load() {
			v = up[c]
		}
		// A class never handed out (the deadline came first) is not
		// settled, even below the floor.
		if !done[c].Load() || !lanczosSettled(cl, lo, up, done, c, qLo) {
			all = false
		}
		if v > best {
			best, arg = v, c
		}
	}
	s.Edge = [2]int{-1, -1}
	s.Delta2 = 0
	if best >= 0 { // (a shard may own no class)
		s.Edge = [2]int{cl[arg].i, cl[arg].j}
		s.Delta2 = roundUpDelta(alpha * best * (1 + 2*roundoffU))
	}
	lower := roundDownDelta(alpha * math.Sqrt(qLo) * (1 - 2*roundoffU))
	s.Slack = math.Max(0, s.Delta2-lower)
	s.Exact = all
	s.lower, s.complete = lower, all
	s.Method = "lanczos-edges"
	if known {
		s.Method = "pass-brackets+lanczos"
	}
	s.Kappa2 = math.NaN()
	return s
}

// radauFilter tries the 3-hop Radau bound (radauWork.bound) on each class
// just before Lanczos would refine it: on the PGP web of trust at τ = 1 it
// settles 3 064 of 11 166 such classes, for 10–1000 µs each where their
// recurrences took 17 steps of 22 µs on average. It judges itself in
// windows of radauWindow tries: where it settled fewer than radauRate of
// them (on the AS graph at τ = 10 it settles 1 %, for 10 s of work), it
// only tries every radauStride-th class until a window pays again (the
// classes come by decreasing cheap bound, and the first ones, close to
// the maximum, are rarely settled by it even where later ones are).
type radauFilter struct {
	pool sync.Pool // *radauWork, one per worker in use

	mu            sync.Mutex
	tries, pruned int // in the current window
	stride, skip  int // try one class in stride; classes passed since the last try
}

const (
	radauWindow = 256
	radauRate   = 0.05
	radauStride = 8
)

func newRadauFilter(g *laplacian.Graph, tau float64) *radauFilter {
	wmax := 0
	for v := range g.N() {
		cols, _ := g.Neighbors(v)
		wmax = max(wmax, len(cols))
	}
	B := expm.LambdaMaxBound(g)
	f := &radauFilter{stride: 1}
	f.pool.New = func() any { return newRadauWork(g, tau, B, wmax) }
	return f
}

// root returns a proven upper bound on √q_e for the edge (i, j): the root
// of its Radau bound, or +Inf when this class is not tried. floor (the
// best lower bound on max q_e) only counts the classes it settles.
func (f *radauFilter) root(i, j int, floor float64) float64 {
	f.mu.Lock()
	f.skip++
	try := f.skip >= f.stride
	if try {
		f.skip = 0
	}
	f.mu.Unlock()
	if !try {
		return math.Inf(1)
	}
	r := f.pool.Get().(*radauWork)
	b := r.bound(i, j)
	f.pool.Put(r)
	f.mu.Lock()
	f.tries++
	if b <= floor {
		f.pruned++
	}
	if f.tries == radauWindow {
		f.stride = 1
		if float64(f.pruned) < radauRate*float64(f.tries) {
			f.stride = radauStride
		}
		f.tries, f.pruned = 0, 0
	}
	f.mu.Unlock()
	return math.Sqrt(b) * (1 + roundoffU)
}

package sensitivity

import (
	"iter"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// columnBlock is the number of unit columns of C = exp(−2τL) computed together.
const columnBlock = 16

// sparseGraphSensitivity certifies Δ2 with Chebyshev columns of
// C = exp(−2τL), organised as an anytime bound-and-refine scheme
// (docs/derivations.md §2.1–2.3):
//
//  1. Every edge gets a proven bound q_e ≤ U_e = min(2, 1/(2eτw_e), GR₁),
//     GR₁ the one-step Gauss–Radau bound
//     2[(1 − α²/s) + (α²/s)e^{−2τs/α}], α = (d_i+d_j+2w_ij)/2, s = ‖L b_e‖²/2,
//     lowered to the rigorous three-node Radau bound of radauWork.bound
//     (3-hop neighbourhood) when that is cheap next to the columns
//     (radauWorthIt).
//  2. Nodes are visited in the order their edges appear when sorted by U_e,
//     in blocks of 16 nearby nodes (blockPicker), each block stepping only
//     over its columns' ball (chebColumns). For each block the Chebyshev expansion
//     p_K(L) = Σ_k c_k T_k((2/B)L − I), c_k = (2 − δ_k0)(−1)^k e^{−a}I_k(a),
//     a = τB, is applied to the unit columns, recording C_ii and C_ij for
//     j ∈ N(i). An edge whose two columns are known gets
//     q_e ∈ q̂_e ± (2E_K(a) + ε_round), since |b_eᵀ(p_K − C)b_e| ≤ ‖b_e‖²E_K.
//  3. Refinement stops when every unrefined U_e is ≤ the best refined lower
//     bound (Δ2 is then known to the slack: Method "bound-and-refine",
//     Exact), when every column is done ("chebyshev-columns", Exact), or
//     when the time budget ends (Δ2 is then max(refined upper, unrefined
//     U_e), a proven upper bound: "bound-and-refine", not Exact).
//
// ε_round bounds the floating-point error of the three-term recurrence: an
// error δ_j injected at step j reaches T_k as U_{k−j}(L̃)δ_j with
// ‖U_m‖ ≤ m+1, so each column is off by ≤ K(K+1)/2·ε_loc + γ_{K+2} + the
// coefficient error, ε_loc = γ_{w+5}(8d_max/B + 3)·1.01; a quadratic form
// uses four entries. The coefficient error allowance (k₀+10)·8u for Miller's
// recurrence is a conservative estimate checked in tests, not a proof.
func sparseGraphSensitivity(g *laplacian.Graph, tau, alpha float64, opt Options, s Result) Result {
	r := newSparseRefiner(g, tau, alpha, opt)
	r.prepare()
	r.candidates()
	r.pilotSchedule()
	r.refine(pilotColumnBlocks)
	r.disown()
	if !r.stopped && r.ptr < len(r.order) {
		r.tightenCheapBounds()
		r.refine(-1)
	}
	return r.result(s)
}

// sparseRefiner holds the state of the bound-and-refine scheme of
// sparseGraphSensitivity: the Chebyshev plan, every edge's proven bound,
// the columns computed so far and the best refined bounds.
type sparseRefiner struct {
	g          *laplacian.Graph
	tau, alpha float64
	opt        Options
	start      time.Time

	chebPlan
	edges  []sparseEdge
	edgeAt []int32 // CSR position → edge
	// foreign marks another shard's edges (GraphShard; nil unsharded):
	// refined like any other during the shared pilot, for the lower bound,
	// then left out of this shard's maximum and its schedule (disown).
	foreign []bool
	seen    []bool  // foreign edges whose lower bound is counted
	order   []int32 // edges by decreasing bound

	tw                *twins
	kern              *blockKernel
	ball              *ball
	diag, off, t0, t1 []float64
	done, refined     []bool
	nodes             []int // the column schedule

	pick       *blockPicker
	sorted     bool          // order is by decreasing bound (false while the Radau bounds change them)
	blockCost  time.Duration // the last block's time (a model of the first before it)
	columnTime time.Duration // the blocks' time so far (the ETA's rate)
	eta        etaSmoother
	need       []bool  // scratch of status: columns the candidates need
	marked     []int32 // the nodes set in need

	bestLo, bestUp  float64
	bestEdge        int
	ptr             int // first unrefined edge in order
	blocks          int
	stopped, pruned bool
}

// newSparseRefiner plans the Chebyshev expansion and its error budget
// (see sparseGraphSensitivity) and gives every edge its cheap bound.
func newSparseRefiner(g *laplacian.Graph, tau, alpha float64, opt Options) *sparseRefiner {
	r := &sparseRefiner{g: g, tau: tau, alpha: alpha, opt: opt, start: time.Now(), bestUp: -1, bestEdge: -1}
	r.chebPlan = newChebPlan(g, tau, opt.Tol)
	r.collectEdges()
	r.foreign = opt.shard.markEdges(g.N(), r.edges)
	if r.foreign != nil {
		r.seen = make([]bool, len(r.edges))
	}
	return r
}

// collectEdges lists the edges (i < j) with their cheap bounds and maps
// both CSR positions of each edge to it.
func (r *sparseRefiner) collectEdges() {
	g := r.g
	n := g.N()
	r.edges = make([]sparseEdge, 0, g.NumEdges())
	r.edgeAt = make([]int32, r.rowStart[n])
	for i := 0; i < n; i++ {
		cols, _ := g.Neighbors(i)
		for k, j32 := range cols {
			j := int(j32)
			if j < i {
				continue
			}
			id := int32(len(r.edges))
			r.edgeAt[r.rowStart[i]+k] = id
			cj, _ := g.Neighbors(j)
			kk := sort.Search(len(cj), func(t int) bool { return cj[t] >= int32(i) })
			r.edgeAt[r.rowStart[j]+kk] = id
			r.edges = append(r.edges, sparseEdge{i: int32(i), j: j32, pij: r.rowStart[i] + k})
		}
	}
	deadline := newCutoff(r.start, r.opt.TimeBudget/4, r.opt.Done) // the cheap bounds may take a quarter of a time budget
	cheapBounds(g, r.tau, bridgeSides(g), len(r.edges), func(e int) (int, int, float64) { ed := r.edges[e]; return int(ed.i), int(ed.j), r.weight(ed) },
		func(e int, u float64) { r.edges[e].u = u }, deadline)
	r.order = make([]int32, len(r.edges))
	for e := range r.order {
		r.order[e] = int32(e)
	}
	r.sortByBound()
	r.sorted = true
}

// weight is the edge's weight w_ij.
func (r *sparseRefiner) weight(e sparseEdge) float64 {
	if _, ws := r.g.Neighbors(int(e.i)); ws != nil {
		return ws[e.pij-r.rowStart[e.i]]
	}
	return 1
}

func (r *sparseRefiner) sortByBound() {
	sort.Slice(r.order, func(x, y int) bool { return r.edges[r.order[x]].u > r.edges[r.order[y]].u })
}

// pilotColumnBlocks is how many column blocks run before the Radau bounds
// (pilotSchedule), and radauChunks how many parts the Radau bounds come
// in, each followed by the columns of its largest bounds (tightenCheapBounds):
// the columns give a proven lower bound on max q_e, and an edge whose cheap
// bound is below it needs no Radau bound. On rgg:n=100000,radius=0.008 at
// τ = 1 the cheap bounds alone settle 89 % of the edges at the final
// maximum, but the edges that set it are bottlenecks that no local guess
// finds (its maximiser has a two-node Gauss value 800× below its q_e): the
// pilot proves 0.022 of the final 0.035, and the Radau bounds of the first
// parts find the rest.
const (
	pilotColumnBlocks = 4
	radauChunks       = 16
)

// pilotSchedule schedules the columns of two lists of candidate
// maximisers, alternately: the edges with the largest Jensen lower bounds
// 2e^{−τ(d_i+d_j+2w)} (jensenLower: the smallest degrees), and those with
// the largest trapScore (heat held at one end). (Those with the largest
// cheap bounds prove only 0.011 on the graph above; on LFR 10⁵ at τ = 1 the
// Jensen edges prove √q = 0.0046 and the trap edges 0.0104.)
func (r *sparseRefiner) pilotSchedule() {
	want := pilotColumnBlocks * columnBlock / 2
	trap := heatTrap(r.g)
	jensen := make([]scoredEdge, 0, want+1)
	held := make([]scoredEdge, 0, want+1)
	for e, ed := range r.edges {
		i, j := int(ed.i), int(ed.j)
		jensen = keepTop(jensen, scoredEdge{int32(e), jensenLower(r.g, i, j, r.weight(ed), r.tau)}, want)
		held = keepTop(held, scoredEdge{int32(e), trapScore(trap, i, j)}, want)
	}
	r.scheduleEdges(func(yield func(int32) bool) {
		for k := range max(len(jensen), len(held)) {
			for _, top := range [2][]scoredEdge{held, jensen} {
				if k < len(top) && !yield(top[k].e) {
					return
				}
			}
		}
	})
}

// scoredEdge is an edge with a score (a guess or a bound).
type scoredEdge struct {
	e int32
	q float64
}

// keepTop inserts c into top (decreasing q), keeping at most want.
func keepTop(top []scoredEdge, c scoredEdge, want int) []scoredEdge {
	if len(top) == want && c.q <= top[want-1].q {
		return top
	}
	k := sort.Search(len(top), func(k int) bool { return top[k].q < c.q })
	top = append(top[:k], append([]scoredEdge{c}, top[k:]...)...)
	return top[:min(len(top), want)]
}

// scheduleEdges schedules the columns of the endpoints of the given edges
// (twin-class representatives not yet computed), in that order, for a new
// blockPicker.
func (r *sparseRefiner) scheduleEdges(edges iter.Seq[int32]) {
	scheduled := make([]bool, r.g.N())
	r.nodes = r.nodes[:0]
	for e := range edges {
		ed := r.edges[e]
		for _, v := range [2]int{r.tw.rep[ed.i], r.tw.rep[ed.j]} {
			if !r.done[v] && !scheduled[v] {
				scheduled[v] = true
				r.nodes = append(r.nodes, v)
			}
		}
	}
	r.pick = r.pick.reuse(r.g, r.nodes)
}

// scored is the sequence of the edges of top.
func scored(top []scoredEdge) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for _, c := range top {
			if !yield(c.e) {
				return
			}
		}
	}
}

// tightenCheapBounds lowers the cheap bounds to the three-node Radau
// bounds when that is cheap next to the columns (radauWorthIt), on the
// unrefined edges whose bound exceeds the best refined lower bound, largest
// cheap bounds first, in radauChunks parts: after each part one block of
// columns for its largest Radau bounds raises that lower bound, so later
// parts skip more edges. Under a time budget (a quarter of it goes to these
// bounds) the edges that set the anytime bound are tightened first; edges
// not reached keep their cheap bounds. While the bounds change the order is
// stale (unsorted: no pruning, and the anytime bound scans every edge); at
// the end the edges are sorted again and the columns they need scheduled.
func (r *sparseRefiner) tightenCheapBounds() {
	if radauWorthIt(r.g, r.K) {
		r.sorted = false
		deadline := newCutoff(r.start, r.opt.TimeBudget/4, r.opt.Done)
		works := newRadauWorks(r.g, r.tau, r.B, r.wmax)
		rest := r.order[r.ptr:]
		chunk := max(len(rest)/radauChunks, 1)
		var part []int32
		for lo := 0; lo < len(rest); lo += chunk {
			part = part[:0]
			for _, e := range rest[lo:min(lo+chunk, len(rest))] {
				if !r.refined[e] && r.edges[e].u > r.bestLo {
					part = append(part, e)
				}
			}
			radauBounds(works, len(part),
				func(k int) (int, int, float64) { e := r.edges[part[k]]; return int(e.i), int(e.j), e.u },
				func(k int, u float64) { r.edges[part[k]].u = u }, deadline)
			if deadline.passed() || lo+chunk >= len(rest) {
				break
			}
			var top []scoredEdge
			for _, e := range part {
				if !r.refined[e] {
					top = keepTop(top, scoredEdge{e, r.edges[e].u}, columnBlock/2)
				}
			}
			r.scheduleEdges(scored(top))
			if r.refine(1); r.stopped {
				break
			}
		}
	}
	r.sortByBound()
	r.sorted = true
	r.ptr = 0
	r.advance()
	r.schedule()
}

// schedule schedules the columns of every unrefined edge, in order of
// their bounds.
func (r *sparseRefiner) schedule() {
	r.scheduleEdges(func(yield func(int32) bool) {
		for _, e := range r.order {
			if !r.refined[e] && !yield(e) {
				return
			}
		}
	})
}

// status reports the anytime bound to opt.Status.
func (r *sparseRefiner) status() {
	if r.opt.Status == nil {
		return
	}
	qUp := math.Max(r.bestUp, r.maxUnrefined())
	certified := 0
	for e := range r.edges {
		ed := r.edges[e]
		if r.refined[e] || ed.u <= r.bestLo {
			certified++
			continue
		}
		// A candidate: the columns it still needs are work left.
		for _, v := range [2]int32{ed.i, ed.j} {
			if r.tw != nil && !r.done[v] && !r.need[r.tw.rep[v]] {
				r.need[r.tw.rep[v]] = true
				r.marked = append(r.marked, int32(r.tw.rep[v]))
			}
		}
	}
	for _, v := range r.marked {
		r.need[v] = false
	}
	need := len(r.marked)
	r.marked = r.marked[:0]
	// The work left is a block per columnBlock columns the candidates
	// need, at the time a block has taken so far.
	eta := r.eta.update(time.Since(r.start), remainingTime(r.columnTime, r.blocks, (need+columnBlock-1)/columnBlock))
	r.opt.Status(Interim{Edges: len(r.edges), EdgesCertified: certified,
		Delta2: roundUpDelta(r.alpha * math.Sqrt(qUp) * (1 + roundoffU)), Elapsed: time.Since(r.start), ETA: eta})
}

// maxUnrefined is the largest bound of an unrefined edge (0 when none):
// the first unrefined edge in order while the order is sorted, else a scan.
func (r *sparseRefiner) maxUnrefined() float64 {
	if r.sorted {
		for _, e := range r.order[r.ptr:] {
			if !r.refined[e] {
				return r.edges[e].u
			}
		}
		return 0
	}
	u := 0.0
	for e := range r.edges {
		if !r.refined[e] {
			u = math.Max(u, r.edges[e].u)
		}
	}
	return u
}

// prepare allocates the column state.
func (r *sparseRefiner) prepare() {
	n := r.g.N()
	r.tw = falseTwins(r.g)
	r.kern = newBlockKernel(r.g)
	r.ball = newBall(r.g)
	r.diag, r.off = make([]float64, n), make([]float64, r.rowStart[n])
	r.done, r.refined = make([]bool, n), make([]bool, len(r.edges))
	r.t0, r.t1 = make([]float64, n*columnBlock), make([]float64, n*columnBlock)
	r.need = make([]bool, n)
	r.status()
	// Under a time budget a block starts only if it is expected to end in
	// time: the first block's cost is modelled as K+1 kernel steps, timed on one.
	if r.opt.TimeBudget > 0 {
		t := time.Now()
		r.kern.step(r.t1, r.t0, nil, 2/r.B, -1, 0)
		r.blockCost = time.Duration(float64(time.Since(t)) * float64(r.K+1) * 1.2)
	}
}

// candidates raises the best refined lower bound by candidateLower on a
// small-world graph, where every column block is a whole-graph pass anyway
// and the cheap bounds prune nothing until the lower bound nears max q_e
// (docs/derivations.md §2.11). It may take half of a time budget.
func (r *sparseRefiner) candidates() {
	if !candidatePass(r.g, r.K) {
		return
	}
	cut := newCutoff(r.start, r.opt.TimeBudget/2, r.opt.Done)
	if root, _ := candidateLower(r.g, r.tau, r.t0, r.t1, cut); root > 0 {
		r.bestLo = math.Max(r.bestLo, root*root*(1-4*roundoffU))
		r.status()
	}
}

// candidatePass reports whether the column scheme runs the candidate pass
// on g with Chebyshev degree K: on small-world graphs (smallWorld) of at
// least candidateMinNodes nodes, below which the columns are quick.
func candidatePass(g *laplacian.Graph, K int) bool {
	return g.N() >= candidateMinNodes && smallWorld(g, K)
}

const candidateMinNodes = 20000

// refine computes up to limit column blocks (all when limit < 0) in
// schedule order, refining every edge whose two columns are known, until
// every edge is refined, the largest unrefined bound is below the best
// refined lower bound (pruned), or the time budget ends (stopped).
func (r *sparseRefiner) refine(limit int) {
	var members []int
	for ; limit != 0; limit-- {
		blk := r.pick.next()
		if len(blk) == 0 {
			return
		}
		if r.opt.TimeBudget > 0 && time.Since(r.start)+r.blockCost > r.opt.TimeBudget {
			r.stopped = true
			return
		}
		blockStart := time.Now()
		deadline := newCutoff(r.start, r.opt.TimeBudget, r.opt.Done)
		if deadline.cancelled() {
			r.stopped = true
			return
		}
		if !chebColumns(r.kern, r.ball, blk, r.tw, r.coef, r.B, r.rowStart, r.diag, r.off, r.t0, r.t1, deadline) {
			r.stopped = true
			return
		}
		r.blockCost = time.Since(blockStart)
		r.columnTime += r.blockCost
		members = r.expandTwins(blk, members[:0])
		r.refineEdgesOf(members)
		r.blocks++
		if r.opt.Progress != nil {
			r.opt.Progress(r.blocks, r.blocks+r.blocksLeft())
		}
		r.advance()
		r.status()
		if r.ptr == len(r.order) {
			return
		}
		if r.sorted && r.edges[r.order[r.ptr]].u <= r.bestLo {
			r.stopped, r.pruned = true, true
			return
		}
	}
}

// disown ends the pilot's sharing on a shard (GraphShard): another
// shard's edges count as refined from now on, so that neither the
// schedule, the Radau bounds nor the pruning test look at them (their
// lower bounds, found with the columns of this shard's edges, still count).
func (r *sparseRefiner) disown() {
	if r.foreign == nil {
		return
	}
	for e, f := range r.foreign {
		if f {
			r.refined[e] = true
		}
	}
	r.advance()
}

// blocksLeft is the number of column blocks left in the schedule.
func (r *sparseRefiner) blocksLeft() int {
	return (len(r.nodes) - r.pick.head + columnBlock - 1) / columnBlock
}

// advance moves ptr past the refined edges at the head of the order.
func (r *sparseRefiner) advance() {
	for r.ptr < len(r.order) && r.refined[r.order[r.ptr]] {
		r.ptr++
	}
}

// expandTwins copies each representative's column to the members of its
// false-twin class, C e_i = C s̄ + e^{−2τd}(e_i − s̄) with s̄ the class mean
// (see falseTwins), marks them done and returns them.
func (r *sparseRefiner) expandTwins(blk, members []int) []int {
	for _, rep := range blk {
		start := len(members)
		members = r.tw.appendClass(members, rep)
		if k := len(members) - start; k > 1 {
			y := r.diag[rep]
			for _, i := range members[start:] {
				r.diag[i] = y + math.Exp(-2*r.tau*r.g.Degree(i))*(1-1/float64(k))
				if i != rep {
					copy(r.off[r.rowStart[i]:r.rowStart[i+1]], r.off[r.rowStart[rep]:r.rowStart[rep+1]])
				}
			}
		}
	}
	for _, i := range members {
		r.done[i] = true
	}
	return members
}

// refineEdgesOf refines every edge of members whose other endpoint's
// column is known: q_e = C_ii + C_jj − 2C_ij ± qErr.
func (r *sparseRefiner) refineEdgesOf(members []int) {
	for _, i := range members {
		cols, _ := r.g.Neighbors(i)
		for k, j32 := range cols {
			if !r.done[int(j32)] {
				continue
			}
			e := r.edgeAt[r.rowStart[i]+k]
			if r.foreign != nil && r.foreign[e] {
				// Another shard's edge: its lower bound, once; not its upper.
				if !r.seen[e] {
					r.seen[e], r.refined[e] = true, true
					ed := r.edges[e]
					r.bestLo = math.Max(r.bestLo, r.diag[ed.i]+r.diag[ed.j]-2*r.off[ed.pij]-r.qErr)
				}
				continue
			}
			if r.refined[e] {
				continue
			}
			r.refined[e] = true
			ed := r.edges[e]
			q := r.diag[ed.i] + r.diag[ed.j] - 2*r.off[ed.pij]
			if up := q + r.qErr; up > r.bestUp {
				r.bestUp, r.bestEdge = up, int(e)
			}
			r.bestLo = math.Max(r.bestLo, q-r.qErr)
		}
	}
}

// result turns the bounds into Δ2: the largest refined upper bound, or an
// unrefined edge's bound when larger (the first unrefined edge in order
// has the largest of them).
func (r *sparseRefiner) result(s Result) Result {
	qUp, bestEdge := r.bestUp, r.bestEdge
	if qUp < 0 && r.ptr == len(r.order) { // a shard that owns no edge
		s.Edge = [2]int{-1, -1}
		lower := roundDownDelta(r.alpha * math.Sqrt(r.bestLo) * (1 - roundoffU))
		s.lower, s.complete, s.Exact = lower, true, true
		s.Method, s.Kappa2 = "chebyshev-columns", math.NaN()
		return s
	}
	if r.ptr < len(r.order) {
		if u := r.edges[r.order[r.ptr]].u; u > qUp {
			qUp, bestEdge = u, int(r.order[r.ptr])
		}
		if r.blocks == 0 {
			r.stopped = true
		}
	}
	s.Edge = [2]int{int(r.edges[bestEdge].i), int(r.edges[bestEdge].j)}
	s.Delta2 = roundUpDelta(r.alpha * math.Sqrt(qUp) * (1 + roundoffU))
	lower := roundDownDelta(r.alpha * math.Sqrt(r.bestLo) * (1 - roundoffU))
	s.Slack = math.Max(0, s.Delta2-lower)
	s.Exact = !r.stopped || r.pruned
	s.lower, s.complete = lower, s.Exact
	s.Method = "chebyshev-columns"
	if r.stopped {
		s.Method = "bound-and-refine"
	}
	s.Kappa2 = math.NaN()
	return s
}

// sparseEdge is an edge of the sparse scheme with its current proven bound u ≥ q_e.
type sparseEdge struct {
	i, j int32
	pij  int // position of j in row i
	u    float64
}

// chebColumns computes y = p_K(L)s̄ for the twin-class representatives i of
// blk (≤ columnBlock), s̄ the mean of the unit vectors of i's class (e_i for
// a class of one), and stores diag[i] = y_i and off[rowStart[i]+k] =
// y_{N(i)_k}. ‖s̄‖₂ ≤ 1 and ‖s̄‖∞ ≤ 1, so the rounding bound derived for
// unit columns covers it.
// t0 and t1 are n·columnBlock scratch blocks (row-major, X[v*b+c]); columns
// beyond len(blk) stay zero.
//
// The columns start on the classes of blk, and T_k lives on their k-hop
// ball, so each step computes only the rows of the ball (ball) until it
// covers a fair part of the graph: on a graph of large diameter (a mesh of
// sensors, a random geometric graph) most steps touch a small part of it.
// The values are those of whole-graph steps (the rows skipped are exact
// zeros), so the rounding bound is unchanged. t0 and t1 must be zero on
// entry and are left zero.
func chebColumns(kern *blockKernel, ball *ball, blk []int, tw *twins, coef []float64, B float64, rowStart []int, diag, off, t0, t1 []float64, cut cutoff) bool {
	const b = columnBlock
	g := kern.g
	var cls []int
	ball.reset()
	for c, i := range blk {
		cls = tw.appendClass(cls[:0], i)
		for _, v := range cls {
			t0[v*b+c] = 1 / float64(len(cls))
			ball.add(int32(v))
		}
	}
	defer ball.clearRows(t0, t1)
	step := func(dst, x, z []float64, a, c, e float64) {
		if ball.grow() {
			kern.step(dst, x, z, a, c, e)
		} else {
			kern.stepOn(ball.nodes, dst, x, z, a, c, e)
		}
	}
	accD := make([]float64, b)
	accO := make([][]float64, b)
	for c, i := range blk {
		accO[c] = make([]float64, rowStart[i+1]-rowStart[i])
	}
	gather := func(t []float64, ck float64) {
		for c, i := range blk {
			accD[c] += ck * t[i*b+c]
			cols, _ := g.Neighbors(i)
			ao := accO[c]
			for k, j := range cols {
				ao[k] += ck * t[int(j)*b+c]
			}
		}
	}
	gather(t0, coef[0])
	K := len(coef) - 1
	if K >= 1 {
		// T1 = L̃ T0 = (2/B) L T0 − T0.
		step(t1, t0, nil, 2/B, -1, 0)
		gather(t1, coef[1])
	}
	for k := 2; k <= K; k++ {
		if k%8 == 0 && cut.passed() {
			return false // nothing of this block is recorded
		}
		// T_{k} = 2 L̃ T_{k−1} − T_{k−2} = (4/B) L T_{k−1} − 2 T_{k−1} − T_{k−2}, into t0.
		step(t0, t1, t0, 4/B, -2, -1)
		t0, t1 = t1, t0
		gather(t1, coef[k])
	}
	for c, i := range blk {
		diag[i] = accD[c]
		copy(off[rowStart[i]:rowStart[i+1]], accO[c])
	}
	return true
}

// cheapEdgeBound returns a proven upper bound on q_e = ‖exp(−τL)(e_i − e_j)‖²
// from the edge's neighbourhood: min(2, ψ(R⁺), GR₁, bridge) (docs/derivations.md
// §2.1). A is a contraction on b_e ⊥ 1, so q_e ≤ ‖b_e‖² = 2; ψ(R⁺) is the
// effective-resistance bound (resistanceEdgeBound of rw's R⁺ ≤ 1/w_e, so
// never above the older 1/(2eτw_e)); GR₁ is the two-node Gauss–Radau rule
// with a node fixed at 0 ≤ λ_min, an upper bound for the completely
// monotone e^{−2τx}; on a bridge (a key of side) bridgeEdgeBound.
func cheapEdgeBound(g *laplacian.Graph, rw *resistanceWork, side map[[2]int]bridgeSide, i, j int, w, tau float64) float64 {
	di, dj := g.Degree(i), g.Degree(j)
	ci, wi := g.Neighbors(i)
	cj, wj := g.Neighbors(j)
	wt := func(ws []float64, k int) float64 {
		if ws == nil {
			return 1
		}
		return ws[k]
	}
	// ‖L e_i − L e_j‖²: rows i and j, plus every other neighbour.
	s2 := (di+w)*(di+w) + (dj+w)*(dj+w)
	p, q := 0, 0
	for p < len(ci) || q < len(cj) {
		switch {
		case q == len(cj) || (p < len(ci) && ci[p] < cj[q]):
			if int(ci[p]) != j {
				x := wt(wi, p)
				s2 += x * x
			}
			p++
		case p == len(ci) || cj[q] < ci[p]:
			if int(cj[q]) != i {
				x := wt(wj, q)
				s2 += x * x
			}
			q++
		default: // common neighbour k: entry −w_ik + w_jk
			x := wt(wj, q) - wt(wi, p)
			s2 += x * x
			p++
			q++
		}
	}
	al := (di + dj + 2*w) / 2
	sm := s2 / 2
	best := math.Min(2, resistanceEdgeBound(rw.bound(i, j, w), tau))
	if b, ok := side[[2]int{min(i, j), max(i, j)}]; ok {
		best = math.Min(best, bridgeEdgeBound(b.small, b.large, w, tau))
	}
	if sm > 0 {
		r := math.Min(1, al*al/sm)
		gr := 2 * ((1 - r) + r*math.Exp(-2*tau*sm/al))
		best = math.Min(best, gr)
	}
	// Cover the rounding in the few operations above.
	return best*roundUp + absSlack
}

// radauWorthIt compares the cost of the 3-hop Radau bounds for every edge
// (≈ 150·|E|·|3-hop ball|, calibrated on random graphs of average degree
// 10 on the reference machine) with that of all Chebyshev columns
// (≈ n·K·(nnz + n)). The bounds only prune, so they are computed only when
// they cost less than a third of the columns: at worst they add a third.
func radauWorthIt(g *laplacian.Graph, K int) bool {
	n := float64(g.N())
	m := float64(g.NumEdges())
	davg := 2*m/n + 1
	ball3 := math.Min(n, 2*davg*davg*davg)
	radau := 150 * m * ball3
	cols := n * float64(K) * (2*m + n)
	return radau < cols/3
}

// ball is a set of nodes grown one hop at a time: the support of a block
// of Chebyshev columns (chebColumns). Its members are kept in increasing
// order, so a step over them reads and writes the blocks' rows in memory
// order. Once it holds more than half of the nodes it stops tracking and
// reports full: whole-graph steps are then as cheap as the indirection.
type ball struct {
	g     *laplacian.Graph
	in    []bool
	nodes []int32 // members, increasing
	front []int32 // the last arrivals, increasing
	spare []int32 // merge buffer
	full  bool
}

func newBall(g *laplacian.Graph) *ball { return &ball{g: g, in: make([]bool, g.N())} }

// reset empties the ball (clearRows must have run since it was last used).
func (b *ball) reset() { b.nodes, b.front, b.full = b.nodes[:0], b.front[:0], false }

// add puts a seed in the ball (before the first grow).
func (b *ball) add(v int32) {
	if !b.in[v] {
		b.in[v] = true
		b.front = append(b.front, v)
	}
}

// grow adds the neighbours of the last arrivals and reports whether the
// ball is full. The first call also takes in the seeds.
func (b *ball) grow() bool {
	if b.full {
		return true
	}
	if len(b.nodes) == 0 { // the seeds arrive
		slices.Sort(b.front)
		b.nodes = append(b.nodes, b.front...)
	}
	arrived := b.spare[:0]
	for _, u := range b.front {
		cols, _ := b.g.Neighbors(int(u))
		for _, v := range cols {
			if !b.in[v] {
				b.in[v] = true
				arrived = append(arrived, v)
			}
		}
	}
	slices.Sort(arrived)
	b.front, b.spare = arrived, b.front
	// Merge the arrivals into the members, from the back, in place.
	old := len(b.nodes)
	b.nodes = slices.Grow(b.nodes, len(arrived))[:old+len(arrived)]
	for i, j, k := old-1, len(arrived)-1, len(b.nodes)-1; j >= 0; k-- {
		if i >= 0 && b.nodes[i] > arrived[j] {
			b.nodes[k] = b.nodes[i]
			i--
		} else {
			b.nodes[k] = arrived[j]
			j--
		}
	}
	b.full = 2*len(b.nodes) > b.g.N()
	return b.full
}

// clearRows zeroes the ball's rows of the n×columnBlock blocks (every row
// once the ball is full) and empties the membership marks.
func (b *ball) clearRows(blocks ...[]float64) {
	const w = columnBlock
	for _, x := range blocks {
		if b.full {
			clear(x)
			continue
		}
		for _, v := range b.nodes {
			clear(x[int(v)*w : int(v)*w+w])
		}
	}
	for _, v := range b.nodes {
		b.in[v] = false
	}
	for _, v := range b.front { // seeds that never grew
		b.in[v] = false
	}
}

// blockPicker forms the column blocks from the schedule: the first node
// not yet taken, then up to columnBlock−1 others among the next
// pickWindow of the schedule, nearest first (breadth-first from the first,
// visiting at most pickVisits nodes), the rest in schedule order. Columns
// of nearby nodes share most of their ball, so on a graph of large
// diameter a block costs little more than one column (chebColumns); the
// schedule's order by bound is kept to within the window.
type blockPicker struct {
	g        *laplacian.Graph
	schedule []int
	head     int     // schedule[:head] are all taken
	taken    []bool  // by node
	window   []int32 // by node: 1 + the block number while the node is in the window
	seen     []int32 // by node: 1 + the block number of its last visit
	blocks   int32
	queue    []int32
	blk      []int
}

const (
	pickWindow = 256
	pickVisits = 1 << 15
)

func newBlockPicker(g *laplacian.Graph, schedule []int) *blockPicker {
	n := g.N()
	return &blockPicker{g: g, schedule: schedule, taken: make([]bool, n), window: make([]int32, n), seen: make([]int32, n)}
}

// reuse returns a picker for a new schedule, reusing p's arrays when p is
// not nil (taken is cleared; the stamps stay unique because the block
// count keeps growing).
func (p *blockPicker) reuse(g *laplacian.Graph, schedule []int) *blockPicker {
	if p == nil {
		return newBlockPicker(g, schedule)
	}
	clear(p.taken)
	p.schedule, p.head = schedule, 0
	return p
}

// next returns the next block (empty when the schedule is exhausted); the
// slice is reused by the following call.
func (p *blockPicker) next() []int {
	for p.head < len(p.schedule) && p.taken[p.schedule[p.head]] {
		p.head++
	}
	p.blk = p.blk[:0]
	if p.head == len(p.schedule) {
		return p.blk
	}
	p.blocks++
	stamp := p.blocks
	inWindow := 0
	for _, v := range p.schedule[p.head:min(p.head+pickWindow, len(p.schedule))] {
		if !p.taken[v] {
			p.window[v] = stamp
			inWindow++
		}
	}
	take := func(v int) {
		p.taken[v] = true
		p.blk = append(p.blk, v)
	}
	first := p.schedule[p.head]
	take(first)
	want := min(columnBlock, inWindow)
	p.queue = append(p.queue[:0], int32(first))
	p.seen[first] = stamp
	for h := 0; h < len(p.queue) && h < pickVisits && len(p.blk) < want; h++ {
		cols, _ := p.g.Neighbors(int(p.queue[h]))
		for _, v := range cols {
			if p.seen[v] == stamp {
				continue
			}
			p.seen[v] = stamp
			p.queue = append(p.queue, v)
			if p.window[v] == stamp && !p.taken[v] && len(p.blk) < want {
				take(int(v))
			}
		}
	}
	for _, v := range p.schedule[p.head:min(p.head+pickWindow, len(p.schedule))] {
		if len(p.blk) == want {
			break
		}
		if !p.taken[v] {
			take(v)
		}
	}
	return p.blk
}

// chebPlan is the Chebyshev expansion of C = exp(−2τL) on [0, B] for the
// column scheme: degree K, coefficients, the proven error of a refined q_e
// (qErr, see sparseGraphSensitivity), and the CSR offsets of the graph.
type chebPlan struct {
	B    float64
	K    int
	coef []float64
	qErr float64

	rowStart []int // CSR offsets
	wmax     int   // the widest row
}

func newChebPlan(g *laplacian.Graph, tau, tol float64) chebPlan {
	var p chebPlan
	n := g.N()
	p.B = expm.LambdaMaxBound(g)
	a := tau * p.B // C = exp(−(2τ)L): a = (2τ)·B/2
	p.K = chebDegree(a, tol)
	E := expm.ChebyshevTail(a, p.K)
	p.coef = chebCoefficients(a, p.K)
	p.rowStart = make([]int, n+1)
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		p.rowStart[i+1] = p.rowStart[i] + len(c)
		p.wmax = max(p.wmax, len(c))
	}
	p.qErr = 2*E + 4*chebColumnErr(g, p.B, a, p.K, p.wmax) + 12*roundoffU
	return p
}

// chebColumnErr bounds the floating-point error of a unit column of the
// degree-K Chebyshev expansion of e^{−a(1+y)} computed by the recurrence
// of chebColumns (see sparseGraphSensitivity), B the spectral bound and
// wmax the widest row.
func chebColumnErr(g *laplacian.Graph, B, a float64, K, wmax int) float64 {
	epsLoc := highamGamma(wmax+5) * (8*g.MaxDegree()/B + 3) * 1.01
	kf := float64(K)
	k0 := expm.BesselStartIndex(a, K)
	return kf*(kf+1)/2*epsLoc + highamGamma(K+2)*1.01 + float64(k0+10)*8*roundoffU
}

// chebCoefficients returns the coefficients c_k, k = 0..K, of e^{−a(1+x)}
// = Σ c_k T_k(x) on [−1, 1]: c_k = (−1)^k·(2 − [k = 0])·e^{−a}I_k(a), from
// the scaled Bessel values expm.BesselIe.
func chebCoefficients(a float64, K int) []float64 {
	ie := expm.BesselIe(a, K)
	coef := make([]float64, K+1)
	for k := range coef {
		c := 2 * ie[k]
		if k == 0 {
			c = ie[0]
		}
		if k%2 == 1 {
			c = -c
		}
		coef[k] = c
	}
	return coef
}

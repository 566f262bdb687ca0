package privacy

import (
	"math"
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
//     in blocks of 16. For each block the Chebyshev expansion
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
func sparseGraphSensitivity(g *laplacian.Graph, tau, alpha float64, opt GraphOptions, s Sensitivity) (Sensitivity, error) {
	start := time.Now()
	n := g.N()
	B := expm.LambdaMaxBound(g)
	a := tau * B // C = exp(−(2τ)L): a = (2τ)·B/2
	K := chebDegree(a, opt.Tol)
	E := expm.ChebyshevTailBound(a, K)
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

	// CSR offsets and the widest row.
	rowStart := make([]int, n+1)
	wmax := 0
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		rowStart[i+1] = rowStart[i] + len(c)
		wmax = max(wmax, len(c))
	}
	epsLoc := highamGamma(wmax+5) * (8*g.MaxDegree()/B + 3) * 1.01
	kf := float64(K)
	k0 := expm.BesselStartIndex(a, K)
	colErr := kf*(kf+1)/2*epsLoc + highamGamma(K+2)*1.01 + float64(k0+10)*8*roundoffU
	qErr := 2*E + 4*colErr + 12*roundoffU

	// Edges with their cheap bounds, and the CSR position → edge map.
	edges := make([]sparseEdge, 0, g.NumEdges())
	edgeAt := make([]int32, rowStart[n])
	for i := 0; i < n; i++ {
		cols, ws := g.Neighbors(i)
		for k, j32 := range cols {
			j := int(j32)
			if j < i {
				continue
			}
			w := 1.0
			if ws != nil {
				w = ws[k]
			}
			id := int32(len(edges))
			edgeAt[rowStart[i]+k] = id
			cj, _ := g.Neighbors(j)
			kk := sort.Search(len(cj), func(t int) bool { return cj[t] >= int32(i) })
			edgeAt[rowStart[j]+kk] = id
			edges = append(edges, sparseEdge{i: i, j: j, pij: rowStart[i] + k, u: cheapEdgeBound(g, i, j, w, tau)})
		}
	}
	order := make([]int32, len(edges))
	for e := range order {
		order[e] = int32(e)
	}
	byBound := func() {
		sort.Slice(order, func(x, y int) bool { return edges[order[x]].u > edges[order[y]].u })
	}
	byBound()
	if radauWorthIt(g, K) {
		// Largest cheap bounds first: under a time budget (a quarter of it
		// goes to these bounds) the edges that set the anytime bound are
		// tightened first; edges not reached keep their cheap bounds.
		ei := make([]int32, len(edges))
		ej := make([]int32, len(edges))
		u := make([]float64, len(edges))
		for k, e := range order {
			ei[k], ej[k], u[k] = int32(edges[e].i), int32(edges[e].j), edges[e].u
		}
		var deadline time.Time
		if opt.TimeBudget > 0 {
			deadline = start.Add(opt.TimeBudget / 4)
		}
		radauBounds(g, tau, B, wmax, ei, ej, u, deadline)
		for k, e := range order {
			edges[e].u = u[k]
		}
		byBound()
	}

	tw := falseTwins(g)

	kern := newBlockKernel(g)
	diag := make([]float64, n)
	off := make([]float64, rowStart[n])
	done := make([]bool, n)
	refined := make([]bool, len(edges))
	t0 := make([]float64, n*columnBlock)
	t1 := make([]float64, n*columnBlock)

	// Node schedule: endpoints of unrefined edges, in order of their best edge.
	scheduled := make([]bool, n)
	var nodes []int
	buildSchedule := func() {
		clear(scheduled)
		nodes = nodes[:0]
		for _, e := range order {
			if refined[e] {
				continue
			}
			for _, v := range [2]int{tw.rep[edges[e].i], tw.rep[edges[e].j]} {
				if !done[v] && !scheduled[v] {
					scheduled[v] = true
					nodes = append(nodes, v)
				}
			}
		}
	}
	buildSchedule()

	bestLo, bestUp := 0.0, -1.0
	bestEdge := -1
	ptr := 0 // first unrefined edge in order
	totalBlocks := (len(nodes) + columnBlock - 1) / columnBlock
	stopped := false // refinement ended before every column was computed
	pruned := false
	blocks := 0
	status := func() {
		if opt.Status == nil {
			return
		}
		qUp := bestUp
		for _, e := range order[ptr:] {
			if !refined[e] {
				qUp = math.Max(qUp, edges[e].u)
				break
			}
		}
		certified := 0
		for e := range edges {
			if refined[e] || edges[e].u <= bestLo {
				certified++
			}
		}
		opt.Status(SensitivityStatus{Edges: len(edges), EdgesCertified: certified,
			Delta2: roundUpDelta(alpha * math.Sqrt(qUp) * (1 + roundoffU)), Elapsed: time.Since(start)})
	}
	status()
	// Under a time budget a block starts only if it is expected to end in
	// time: the first block's cost is K+1 kernel steps, timed on one.
	var blockCost time.Duration
	if opt.TimeBudget > 0 {
		t := time.Now()
		kern.step(t1, t0, nil, 2/B, -1, 0)
		blockCost = time.Duration(float64(time.Since(t)) * float64(K+1) * 1.2)
	}
	var members []int
	for lo := 0; lo < len(nodes); lo += columnBlock {
		if opt.TimeBudget > 0 && time.Since(start)+blockCost > opt.TimeBudget {
			stopped = true
			break
		}
		hi := min(lo+columnBlock, len(nodes))
		blk := nodes[lo:hi]
		blockStart := time.Now()
		chebColumns(kern, blk, tw, coef, B, rowStart, diag, off, t0, t1)
		if opt.TimeBudget > 0 {
			blockCost = time.Since(blockStart)
		}
		members = members[:0]
		for _, r := range blk {
			start := len(members)
			members = tw.appendClass(members, r)
			if k := len(members) - start; k > 1 {
				// C e_i = C s̄ + e^{−2τd}(e_i − s̄), s̄ the class mean (see falseTwins).
				y := diag[r]
				for _, i := range members[start:] {
					diag[i] = y + math.Exp(-2*tau*g.Degree(i))*(1-1/float64(k))
					if i != r {
						copy(off[rowStart[i]:rowStart[i+1]], off[rowStart[r]:rowStart[r+1]])
					}
				}
			}
		}
		for _, i := range members {
			done[i] = true
		}
		for _, i := range members {
			cols, _ := g.Neighbors(i)
			for k, j32 := range cols {
				j := int(j32)
				if !done[j] {
					continue
				}
				e := edgeAt[rowStart[i]+k]
				if refined[e] {
					continue
				}
				refined[e] = true
				ed := edges[e]
				q := diag[ed.i] + diag[ed.j] - 2*off[ed.pij]
				if up := q + qErr; up > bestUp {
					bestUp, bestEdge = up, int(e)
				}
				bestLo = math.Max(bestLo, q-qErr)
			}
		}
		blocks++
		if opt.Progress != nil {
			opt.Progress(blocks, totalBlocks)
		}
		for ptr < len(order) && refined[order[ptr]] {
			ptr++
		}
		status()
		if ptr == len(order) {
			break
		}
		if edges[order[ptr]].u <= bestLo {
			stopped, pruned = true, true
			break
		}
	}

	qUp := bestUp
	if ptr < len(order) {
		// Unrefined edges contribute their cheap bounds (the first in order
		// is the largest of them).
		if u := edges[order[ptr]].u; u > qUp {
			qUp, bestEdge = u, int(order[ptr])
		}
	}
	if ptr < len(order) && blocks == 0 {
		stopped = true
	}
	s.Edge = [2]int{edges[bestEdge].i, edges[bestEdge].j}
	s.Delta2 = roundUpDelta(alpha * math.Sqrt(qUp) * (1 + roundoffU))
	lower := roundDownDelta(alpha * math.Sqrt(bestLo) * (1 - roundoffU))
	s.Slack = math.Max(0, s.Delta2-lower)
	s.Exact = !stopped || pruned
	s.Method = "chebyshev-columns"
	if stopped {
		s.Method = "bound-and-refine"
	}
	s.Kappa2 = math.NaN()
	return s, nil
}

// sparseEdge is an edge of the sparse scheme with its current proven bound u ≥ q_e.
type sparseEdge struct {
	i, j int
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
func chebColumns(kern *blockKernel, blk []int, tw *twins, coef []float64, B float64, rowStart []int, diag, off, t0, t1 []float64) {
	const b = columnBlock
	g := kern.g
	clear(t0)
	var cls []int
	for c, i := range blk {
		cls = tw.appendClass(cls[:0], i)
		for _, v := range cls {
			t0[v*b+c] = 1 / float64(len(cls))
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
		kern.step(t1, t0, nil, 2/B, -1, 0)
		gather(t1, coef[1])
	}
	for k := 2; k <= K; k++ {
		// T_{k} = 2 L̃ T_{k−1} − T_{k−2} = (4/B) L T_{k−1} − 2 T_{k−1} − T_{k−2}, into t0.
		kern.step(t0, t1, t0, 4/B, -2, -1)
		t0, t1 = t1, t0
		gather(t1, coef[k])
	}
	for c, i := range blk {
		diag[i] = accD[c]
		copy(off[rowStart[i]:rowStart[i+1]], accO[c])
	}
}

// cheapEdgeBound returns a proven upper bound on q_e = ‖exp(−τL)(e_i − e_j)‖²
// in O(d_i + d_j): min(2, 1/(2eτw_e), GR₁) (docs/derivations.md §2.1). A is a
// contraction on b_e ⊥ 1, so q_e ≤ ‖b_e‖² = 2; w_e q_e is a diagonal entry of
// g(MᵀM), g(x) = x e^{−2τx} ≤ 1/(2eτ); GR₁ is the two-node Gauss–Radau rule
// with a node fixed at 0 ≤ λ_min, an upper bound for the completely
// monotone e^{−2τx}.
func cheapEdgeBound(g *laplacian.Graph, i, j int, w, tau float64) float64 {
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
	best := 2.0
	best = math.Min(best, 1/(2*math.E*tau*w))
	if sm > 0 {
		r := math.Min(1, al*al/sm)
		gr := 2 * ((1 - r) + r*math.Exp(-2*tau*sm/al))
		best = math.Min(best, gr)
	}
	// Cover the rounding in the few operations above.
	return best*(1+1e-12) + 1e-15
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

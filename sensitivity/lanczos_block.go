package sensitivity

import (
	"math"
	"sync"
)

// lanczosBlock runs up to columnBlock independent Lanczos recurrences (one
// edge each, in slots) side by side, so that one pass of the sparse matrix
// (blockKernel) serves all of them: the product L·[v⁽¹⁾ … v⁽¹⁶⁾] costs little
// more memory traffic than one L·v. Each slot is exactly the recurrence of
// lanczosWork.step (same operations in the same order per slot, so the
// same rounding bounds hold) and is certified by lanczosWork.certify.
type lanczosBlock struct {
	op     *lanczosOp
	kern   *blockKernel
	n      int
	X, W   []float64 // current vectors and L·X, n×columnBlock row-major
	P      []float64 // previous vectors (zero before a slot's second step), same layout
	zero   []float64 // n zeros: the previous vector of a slot at its first step
	slot   [columnBlock]*lanczosWork
	class  [columnBlock]int     // the edge class in each slot, −1 when idle
	k      [columnBlock]int     // steps done in each slot
	next   [columnBlock]int     // the step count of each slot's next check
	width  [columnBlock]float64 // each slot's bracket width at its last stall test
	widthK [columnBlock]int     // the step of that test

	// minSteps is the number of block steps that run before the deadline
	// counts (the dry run's pilot: a result that does not depend on load).
	minSteps, steps int
	slotSteps       int   // steps summed over the busy slots
	loadedAt        []int // block step at which each class of inOrder was loaded

	// parts and rowParts split the rows among goroutines in each step
	// (spreadRows), parts by stored entries for the product and rowParts
	// evenly for the passes over the vectors; {0, n}, one part, otherwise.
	// The sums of a step are summed per part, then over the parts in
	// order: with one part the step of one goroutine.
	parts, rowParts []int
	sums            [][4][columnBlock]float64 // per part: α, ‖Lv‖², Σω_r v_r², then ‖w‖² or ‖v‖²
}

// spreadRows makes each step run on every core, its rows split by stored
// entries as the column kernel splits them: for a block that runs alone
// (the dry run's pilot), not for the run's blocks, one on each worker.
// Per slot the operations are the same; the sums α, ‖w‖² and ‖v‖² are
// added in another order.
func (lb *lanczosBlock) spreadRows() {
	lb.parts = newBlockKernel(lb.op.g).splits
	w := len(lb.parts) - 1
	lb.rowParts = make([]int, w+1)
	for p := range lb.rowParts {
		lb.rowParts[p] = p * lb.n / w
	}
	lb.sums = make([][4][columnBlock]float64, w)
}

// eachPart runs f on every part of the rows as split, part 0 on this
// goroutine, and waits for them all.
func eachPart(split []int, f func(p, lo, hi int)) {
	if len(split) <= 2 {
		f(0, split[0], split[len(split)-1])
		return
	}
	var wg sync.WaitGroup
	for p := 1; p+1 < len(split); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p, split[p], split[p+1])
		}()
	}
	f(0, split[0], split[1])
	wg.Wait()
}

// sumParts adds sum k of each part (sums) into sum, part by part in order,
// and clears them.
func (lb *lanczosBlock) sumParts(sum *[columnBlock]float64, k int) {
	for p := range lb.sums {
		q := &lb.sums[p][k]
		for t := range sum {
			sum[t] += q[t]
		}
		*q = [columnBlock]float64{}
	}
}

// inOrder hands out edges[0], edges[1], … as classes 0, 1, … for refine,
// remembering when each was loaded (stepsOf).
func (lb *lanczosBlock) inOrder(edges [][2]int) func() (c, i, j int, ok bool) {
	lb.loadedAt = make([]int, len(edges))
	next := 0
	return func() (c, i, j int, ok bool) {
		if next >= len(edges) {
			return 0, 0, 0, false
		}
		c, next = next, next+1
		lb.loadedAt[c] = lb.steps
		return c, edges[c][0], edges[c][1], true
	}
}

// stepsOf is the number of steps class c of inOrder has run so far: every
// busy slot steps with the block.
func (lb *lanczosBlock) stepsOf(c int) int {
	return lb.steps - lb.loadedAt[c]
}

func newLanczosBlock(op *lanczosOp, tau float64, kmax int) *lanczosBlock {
	n := op.g.N()
	lb := &lanczosBlock{op: op, kern: &blockKernel{g: op.g, deg: op.deg, splits: []int{0, n}}, n: n,
		X: make([]float64, n*columnBlock), W: make([]float64, n*columnBlock), P: make([]float64, n*columnBlock),
		zero: make([]float64, n), parts: []int{0, n}, rowParts: []int{0, n}, sums: make([][4][columnBlock]float64, 1)}
	pool := new([][]float64)
	for s := range lb.slot {
		lb.slot[s] = newLanczosWork(op, tau, kmax)
		lb.slot[s].pool = pool
		lb.class[s] = -1
	}
	return lb
}

// load starts slot s on edge (i, j) of the graph.
func (lb *lanczosBlock) load(s, c, i, j int) {
	lw := lb.slot[s]
	lw.release()
	lb.op.start(lw, i, j)
	lb.setColumn(s, lw.vec(0))
	for r := 0; r < lb.n; r++ {
		lb.P[r*columnBlock+s] = 0
	}
	lb.class[s], lb.k[s], lb.next[s], lb.width[s], lb.widthK[s] = c, 0, 4, math.Inf(1), 0
}

// idle clears slot s.
func (lb *lanczosBlock) idle(s int) {
	lb.slot[s].release()
	lb.class[s] = -1
	for r := 0; r < lb.n; r++ {
		lb.X[r*columnBlock+s], lb.P[r*columnBlock+s] = 0, 0
	}
}

func (lb *lanczosBlock) setColumn(s int, v []float64) {
	for r, x := range v {
		lb.X[r*columnBlock+s] = x
	}
}

// step advances every busy slot by one Lanczos step and reports for each
// slot whether it broke down. Per slot it performs exactly the operations
// of lanczosWork.step (matrix–vector product, α, the axpys, β and the
// normalisation), in passes over the rows so that the n×16 blocks are read
// contiguously, each pass on the parts of the rows at once (spreadRows);
// idle slots hold zero vectors and stay zero.
func (lb *lanczosBlock) step() (broke [columnBlock]bool) {
	const b, chunk = columnBlock, 256
	var a, errSq, wn, bb, bPrev, inv, vn [b]float64
	var next [b][]float64
	for s := 0; s < b; s++ {
		if lb.class[s] < 0 {
			continue
		}
		lw, k := lb.slot[s], lb.k[s]
		if k > 0 {
			bPrev[s] = lw.beta[k-1]
		}
		if !lw.window { // a window's vectors are never read (its bounds are Gauss rules)
			next[s] = lw.vec(k + 1)
		}
	}
	// W = L·X in chunks of rows, each summed into α, ‖Lv‖² and Σω_r v_r²
	// while it is in cache.
	om := lb.op.omega
	eachPart(lb.parts, func(p, lo, hi int) {
		q := &lb.sums[p]
		for c := lo; c < hi; c += chunk {
			e := min(c+chunk, hi)
			lb.kern.rows(c, e, lb.W, lb.X, nil, 1, 0, 0)
			dots(lb.W[c*b:e*b], lb.X[c*b:e*b], om[c:e], &q[0], &q[1], &q[2])
		}
	})
	lb.sumParts(&a, 0)
	lb.sumParts(&wn, 1)
	lb.sumParts(&errSq, 2)
	// W − αX − β_prev P, row by row over the contiguous blocks (per slot
	// the operations of lanczosWork.step; idle slots stay zero).
	eachPart(lb.rowParts, func(p, lo, hi int) {
		axpy2(lb.W[lo*b:hi*b], lb.X[lo*b:hi*b], lb.P[lo*b:hi*b], &a, &bPrev, &lb.sums[p][3])
	})
	lb.sumParts(&bb, 3)
	for s := 0; s < b; s++ {
		if bt := math.Sqrt(bb[s]); lb.class[s] >= 0 && bt > breakdownBeta && !math.IsInf(bt, 0) {
			inv[s] = 1 / bt
		}
	}
	// The next vectors: X becomes P, W/β becomes X, then each busy slot's
	// column is copied to its own array while the chunk is in cache.
	eachPart(lb.rowParts, func(p, lo, hi int) {
		for c := lo; c < hi; c += chunk {
			e := min(c+chunk, hi)
			scaleShift(lb.W[c*b:e*b], lb.X[c*b:e*b], lb.P[c*b:e*b], &inv, &lb.sums[p][3])
			for s := 0; s < b; s++ {
				if next[s] == nil {
					continue
				}
				nx := next[s]
				for r := c; r < e; r++ {
					nx[r] = lb.X[r*b+s]
				}
			}
		}
	})
	lb.sumParts(&vn, 3)
	for s := 0; s < b; s++ {
		if lb.class[s] < 0 {
			continue
		}
		lw, k := lb.slot[s], lb.k[s]
		vpn := 0.0
		if k > 0 {
			vpn = lw.vnorm[k-1]
		}
		broke[s] = !lw.record(k, a[s], errSq[s], wn[s], bb[s], bPrev[s], vpn, vn[s])
		lb.k[s]++
	}
	return broke
}

// refine refines edge classes in the first slots slots of the block:
// take hands out the next class (ok false when there is none or time is
// up), floor is the shared best lower bound on max q_e and done receives
// each class's bracket, with deep set when only the memory cap kmax cut it
// short (the caller may run it again with more steps).
func (lb *lanczosBlock) refine(slots int, take func() (c, i, j int, ok bool), floor func() float64, done func(c int, lo, up float64, deep bool), cut cutoff) {
	busy := 0
	for s := range lb.slot {
		if s >= slots {
			lb.idle(s)
		} else if c, i, j, ok := take(); ok {
			lb.load(s, c, i, j)
			busy++
		} else {
			lb.idle(s)
		}
	}
	for busy > 0 {
		broke := lb.step()
		lb.steps++
		for s := range lb.slot {
			if lb.class[s] >= 0 {
				lb.slotSteps++
			}
		}
		late := (lb.steps >= lb.minSteps && cut.timeUp()) || cut.cancelled()
		for s := range lb.slot {
			c := lb.class[s]
			if c < 0 {
				continue
			}
			lw, k := lb.slot[s], lb.k[s]
			forced := broke[s] || k >= lw.kmax || late
			if k < lb.next[s] && !forced {
				continue
			}
			fl := floor()
			settles := func(lo, up float64) bool {
				return up*up <= fl || up-lo <= lanczosRelTol*math.Max(up, math.Sqrt(fl))
			}
			// The cheap estimate screens out checks that cannot succeed;
			// it costs O(k²), so checks come every k/8 steps.
			lo, up, zn := lw.estimate(k, math.Sqrt(fl))
			if !forced && !settles(lo, up) {
				lb.next[s] = k + max(3, k/8)
				continue
			}
			if lw.window {
				// A guess (see pilotSteps): the Gauss rule, below q_e in
				// exact arithmetic, within the screening estimate.
				lo = math.Max(lo, math.Min(zn, up))
			} else {
				lo, up = lw.certify(k, math.Sqrt(fl))
			}
			// Stagnation: the rounding terms, which grow with k, have
			// caught up with the shrinking truncation term (tested at
			// least k/4 steps apart, so that slow progress is not taken
			// for none).
			stalled := false
			if k >= lb.widthK[s]+max(4, lb.widthK[s]/4) {
				stalled = k >= 64 && up-lo > 0.9*lb.width[s]
				lb.width[s], lb.widthK[s] = up-lo, k
			}
			if !forced && !settles(lo, up) && !stalled {
				lb.next[s] = k + max(3, k/8)
				continue
			}
			done(c, lo, up, k >= lw.kmax && !broke[s] && !late && !settles(lo, up) && !stalled)
			if c, i, j, ok := take(); ok {
				lb.load(s, c, i, j)
			} else {
				lb.idle(s)
				busy--
			}
		}
	}
}

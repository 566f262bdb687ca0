package community

// Local moving, made parallel without giving up determinism.
//
// The nodes to visit are taken in a random order and cut into chunks of
// moveChunk nodes. Within a chunk every node's best move is decided in
// parallel against the state at the start of the chunk; the moves are then
// applied one by one in chunk order, each re-checked against the current
// community strengths (a move whose gain vanished is dropped, and a
// singleton joins another singleton only if its label is lower, so two
// neighbours cannot swap). Chunks are fixed by the order alone, never by
// the number of workers, so the partition is the same for any
// concurrency. Levels with fewer than sequentialLinks links are moved one
// node at a time (the exact sequential algorithm): they are cheap, and
// deciding whole chunks at once would stall on small aggregate graphs. So
// are dense levels, where a node has on average staleNeighbours or more
// neighbours in its own chunk (links/n · moveChunk/n): there nearly every
// decision goes stale and is made again, round after round (on LFR with
// 10⁶ edges a level of 2 375 nodes and 5.6·10⁵ links decided 8 times as
// many nodes as it had, and took a fifth of the run).

const (
	moveChunk       = 2048
	staleNeighbours = 16
	sequentialLinks = 1 << 17
	maxMoveSweeps   = 32
	gainTolerance   = 1e-12
	moveGrain       = 128 // nodes per work item inside a chunk
)

// alone is the target "a new community of its own".
const alone = -1

// moveScratch is one worker's scratch: wTo[c] is the weight from the node
// being decided to community c (zero between uses), touched the c set;
// count is wTo for unit weights (the base level of an unweighted graph),
// where the sums are small integers: half the bytes, so more of the array
// stays in cache.
type moveScratch struct {
	wTo     []float64
	count   []int32
	touched []int32
	labels  []int32 // the communities of the node's neighbours
}

func (ld *leiden) ensureScratch(n int) {
	for i := range ld.scratch {
		if len(ld.scratch[i].wTo) < n {
			ld.scratch[i].wTo = make([]float64, n)
		}
	}
}

// ensureCounts gives every worker a count array of n entries.
func (ld *leiden) ensureCounts(n int) {
	for i := range ld.scratch {
		if len(ld.scratch[i].count) < n {
			ld.scratch[i].count = make([]int32, n)
		}
	}
}

// mover holds the state of one local-moving phase.
type mover struct {
	lv    *level
	comm  []int32
	K     []float64 // total strength of each community
	size  []int32
	empty []int32 // labels of empty communities (may hold stale ones)
	scale float64 // γ/2m
}

// decide returns v's best community against the current state, with the
// weights from v to its own community (wa) and to the target (wb).
func (m *mover) decide(sc *moveScratch, v int32) (target int32, wa, wb float64) {
	lv := m.lv
	lo, hi := lv.rowPtr[v], lv.rowPtr[v+1]
	sc.labels = gatherLabels(sc.labels[:0], m.comm, lv.col[lo:hi])
	if lv.w == nil {
		return decideWith(m, sc, sc.count, v, nil)
	}
	return decideWith(m, sc, sc.wTo, v, lv.w[lo:hi])
}

// decideWith is decide summing the weights to each community in wTo (ws:
// the weights of v's links, nil for unit weights); wTo is left zero.
func decideWith[T int32 | float64](m *mover, sc *moveScratch, wTo []T, v int32, ws []float64) (target int32, wa, wb float64) {
	touched := sc.touched[:0]
	if ws == nil {
		for _, c := range sc.labels {
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c]++
		}
	} else {
		for q, c := range sc.labels {
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c] += T(ws[q])
		}
	}
	a, kv := m.comm[v], m.lv.k[v]
	K, scale := m.K, m.scale
	wa = float64(wTo[a])
	best, bestGain := a, wa-scale*kv*(K[a]-kv)
	wb = wa
	// One pass over the touched communities both picks the best and
	// clears wTo for the next node.
	for _, c := range touched {
		w := float64(wTo[c])
		wTo[c] = 0
		if c == a {
			continue
		}
		if gain := w - scale*kv*K[c]; gain > bestGain+gainTolerance {
			best, bestGain, wb = c, gain, w
		}
	}
	sc.touched = touched[:0]
	if m.size[a] > 1 && 0 > bestGain+gainTolerance {
		return alone, wa, 0 // alone is better than anywhere
	}
	return best, wa, wb
}

// gatherLabels appends the labels of cols to dst. The loads are
// independent, so the processor overlaps their cache misses; read inside
// the summing loop, whose branch on a first visit often mispredicts, each
// miss was waited on by itself.
func gatherLabels(dst, label, cols []int32) []int32 {
	for _, u := range cols {
		dst = append(dst, label[u])
	}
	return dst
}

// apply moves v to target if that raises Q (against the current state
// when recheck is set) and returns the gain ΔQ·m of the move (0: not
// moved).
func (m *mover) apply(v, target int32, wa, wb float64, recheck bool) float64 {
	a, kv := m.comm[v], m.lv.k[v]
	if target == a {
		return 0
	}
	stay := wa - m.scale*kv*(m.K[a]-kv)
	gain := -stay // of a move to a new community
	if target != alone {
		gain = wb - m.scale*kv*m.K[target] - stay
	}
	if recheck {
		switch {
		case target == alone && m.size[a] <= 1:
			return 0
		case target != alone && m.size[a] == 1 && m.size[target] == 1 && target > a:
			return 0
		case gain <= gainTolerance:
			return 0
		}
	}
	if target == alone {
		for len(m.empty) > 0 && m.size[m.empty[len(m.empty)-1]] > 0 {
			m.empty = m.empty[:len(m.empty)-1]
		}
		if len(m.empty) == 0 {
			return 0
		}
		target = m.empty[len(m.empty)-1]
		m.empty = m.empty[:len(m.empty)-1]
	}
	m.K[a] -= kv
	m.size[a]--
	if m.size[a] == 0 {
		m.empty = append(m.empty, a)
	}
	m.K[target] += kv
	m.size[target]++
	m.comm[v] = target
	return max(gain, gainTolerance)
}

// neighbourMoved reports whether a neighbour of v moved in chunk stamp.
func (m *mover) neighbourMoved(v int32, movedAt []int32, stamp int32) bool {
	lv := m.lv
	for _, u := range lv.col[lv.rowPtr[v]:lv.rowPtr[v+1]] {
		if movedAt[u] == stamp {
			return true
		}
	}
	return false
}

// moveNodes is the local moving phase: nodes move to the neighbouring
// community (or an empty one) with the largest gain
//
//	ΔQ·m = E(v, B) − E(v, A∖v) − γ k_v (K_B − K_{A∖v}) / 2m
//
// while that gain is positive. Sweeps visit the active nodes in order;
// the neighbours of a node that moved are active in the next sweep (the
// fast local moving of Leiden, in sweeps). active (nil: all) marks the
// nodes of the first sweep and is consumed. Labels in comm must lie in
// 0..n−1. It returns how many moves were made over all sweeps.
func (ld *leiden) moveNodes(lv *level, comm []int32, active []bool, order []int32, tolerance float64) (moves int) {
	n := lv.n
	m := newMover(lv, comm, ld.gamma/lv.m2)
	if active == nil {
		active = make([]bool, n)
		for i := range active {
			active[i] = true
		}
	}
	if lv.w == nil {
		ld.ensureCounts(n)
	} else {
		ld.ensureScratch(n)
	}
	chunked := len(lv.col) >= sequentialLinks && int64(len(lv.col))*moveChunk < staleNeighbours*int64(n)*int64(n)
	moved := make([]bool, n)
	var list, movedList []int32
	var ch *chunkMover
	if chunked {
		ch = &chunkMover{m: m, ld: ld, movedAt: make([]int32, n), target: make([]int32, moveChunk),
			wa: make([]float64, moveChunk), wb: make([]float64, moveChunk), pending: make([]int32, 0, moveChunk)}
	}
	for sweep := 0; sweep < maxMoveSweeps; sweep++ {
		list = takeActive(list[:0], order, active)
		if len(list) == 0 {
			break
		}
		movedList = movedList[:0]
		gain := 0.0
		if !chunked {
			movedList, gain = m.sweep(&ld.scratch[0], list, movedList, gain)
		} else {
			for lo := 0; lo < len(list); lo += moveChunk {
				chunk := list[lo:min(lo+moveChunk, len(list))]
				movedList, gain = ch.chunk(chunk, movedList, gain)
			}
		}
		if debugMove {
			println("level", n, "links", len(lv.col), "sweep", sweep, "dQ", 2*gain/lv.m2, "active", len(list), "moved", len(movedList))
		}
		moves += len(movedList)
		if len(movedList) == 0 {
			break
		}
		ld.activateNeighbours(lv, movedList, moved, active)
		if 2*gain/lv.m2 < tolerance {
			break // the sweep raised Q by less than the tolerance
		}
	}
	return moves
}

// newMover is the mover of the partition comm of lv: the communities'
// degree sums and sizes, and the empty labels (the lowest last).
func newMover(lv *level, comm []int32, scale float64) *mover {
	n := lv.n
	m := &mover{lv: lv, comm: comm, K: make([]float64, n), size: make([]int32, n), scale: scale}
	for v := 0; v < n; v++ {
		m.K[comm[v]] += lv.k[v]
		m.size[comm[v]]++
	}
	for c := n - 1; c >= 0; c-- {
		if m.size[c] == 0 {
			m.empty = append(m.empty, int32(c))
		}
	}
	return m
}

// takeActive appends to list the active nodes in order, deactivating them.
func takeActive(list, order []int32, active []bool) []int32 {
	for _, v := range order {
		if active[v] {
			list = append(list, v)
			active[v] = false
		}
	}
	return list
}

// sweep decides and applies the nodes of list one by one, appending those
// that moved to movedList and their gains to gain.
func (m *mover) sweep(sc *moveScratch, list, movedList []int32, gain float64) ([]int32, float64) {
	for _, v := range list {
		t, a, b := m.decide(sc, v)
		if g := m.apply(v, t, a, b, false); g > 0 {
			movedList = append(movedList, v)
			gain += g
		}
	}
	return movedList, gain
}

// chunkMover moves the nodes of one chunk at a time: in rounds, the
// pending nodes are decided in parallel against the state at the start
// of the round, then applied in order; a node whose neighbour moved
// earlier in the round was decided on a stale neighbourhood and waits for
// the next round. The first pending node always has a fresh decision, so
// every round settles at least one node. When few nodes remain pending
// they are decided and applied one by one. The rounds depend only on the
// order, never on the workers.
type chunkMover struct {
	m       *mover
	ld      *leiden
	movedAt []int32 // the round in which a node last moved
	stamp   int32
	target  []int32
	wa, wb  []float64
	pending []int32
}

// sequentialPending is the fewest pending nodes decided in parallel.
const sequentialPending = 64

// chunk moves the nodes of chunk, appending those that moved to
// movedList and their gains to gain.
func (c *chunkMover) chunk(chunk, movedList []int32, gain float64) ([]int32, float64) {
	m := c.m
	pending := append(c.pending[:0], chunk...)
	for len(pending) >= sequentialPending {
		forBlocks(c.ld.workers, len(pending), moveGrain, func(w, from, to int) {
			sc := &c.ld.scratch[w]
			for i := from; i < to; i++ {
				c.target[i], c.wa[i], c.wb[i] = m.decide(sc, pending[i])
			}
		})
		c.stamp++
		next := pending[:0] // overwrites only entries already read
		for i, v := range pending {
			if c.target[i] != m.comm[v] && m.neighbourMoved(v, c.movedAt, c.stamp) {
				next = append(next, v) // decided on a stale neighbourhood
				continue
			}
			if g := m.apply(v, c.target[i], c.wa[i], c.wb[i], true); g > 0 {
				c.movedAt[v] = c.stamp
				movedList = append(movedList, v)
				gain += g
			}
		}
		pending = next
	}
	sc := &c.ld.scratch[0]
	for _, v := range pending {
		t, a, b := m.decide(sc, v)
		if g := m.apply(v, t, a, b, true); g > 0 {
			movedList = append(movedList, v)
			gain += g
		}
	}
	return movedList, gain
}

// activateNeighbours marks every neighbour of a moved node active: by
// pushing from the moved nodes when they are few, by pulling in parallel
// (a node is active when one of its neighbours moved) when they are many.
// Both give the same set.
func (ld *leiden) activateNeighbours(lv *level, movedList []int32, moved, active []bool) {
	if len(movedList)*16 < lv.n {
		for _, v := range movedList {
			for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
				active[lv.col[p]] = true
			}
		}
		return
	}
	for _, v := range movedList {
		moved[v] = true
	}
	forBlocks(ld.workers, lv.n, 4096, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			for p := lv.rowPtr[u]; p < lv.rowPtr[u+1]; p++ {
				if moved[lv.col[p]] {
					active[u] = true
					break
				}
			}
		}
	})
	for _, v := range movedList {
		moved[v] = false
	}
}

var debugMove = false

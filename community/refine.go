package community

// refineScratch is one worker's scratch for refining a community of m
// nodes, indexed by the node's position in the community.
type refineScratch struct {
	ref     []int32   // refined sub-community (position of its founder)
	kref    []float64 // strength of each sub-community
	ext     []float64 // E(C, S∖C) of each sub-community
	single  []bool
	wTo     []float64
	touched []int32
	// The community's own subgraph in local positions: the links of
	// member i to other members are at[start[i]:start[i+1]] (weights lw).
	start  []int32
	at     []int32
	lw     []float64
	labels []int32
}

func (s *refineScratch) grow(m int) {
	if len(s.ref) < m {
		s.ref, s.kref, s.ext = make([]int32, m), make([]float64, m), make([]float64, m)
		s.single, s.wTo = make([]bool, m), make([]float64, m)
	}
}

// refineGrain is the number of nodes per block of communities refined by
// one worker.
const refineGrain = 4096

// refine splits every community of comm (labels 0..k−1) into connected
// sub-communities: within each community S, nodes start as singletons; in
// random order, each well-connected singleton v (E(v, S∖v) ≥ γ k_v (K_S −
// k_v)/2m) joins the sub-community C of S that it has an edge to, that is
// itself well connected (E(C, S∖C) ≥ γ K_C (K_S − K_C)/2m) and that gives
// the largest non-negative gain E(v, C) − γ k_v K_C/2m. Communities are
// refined independently, in parallel; the order inside each is the
// random order. It returns the refined labels (each a node of the
// community).
func (ld *leiden) refine(lv *level, comm []int32, k int, order []int32) []int32 {
	start, members := groups(comm, k, order)
	refined := make([]int32, lv.n)
	pos := make([]int32, lv.n) // position of each node within its community
	// Blocks of consecutive communities with about refineGrain nodes.
	var bounds []int
	for c, size := 0, int64(0); c < k; c++ {
		if size == 0 {
			bounds = append(bounds, c)
		}
		if size += start[c+1] - start[c]; size >= refineGrain {
			size = 0
		}
	}
	bounds = append(bounds, k)
	for len(ld.refineScratch) < ld.workers {
		ld.refineScratch = append(ld.refineScratch, refineScratch{})
	}
	forEach(ld.workers, len(bounds)-1, 1, func(w, b int) {
		sc := &ld.refineScratch[w]
		for c := bounds[b]; c < bounds[b+1]; c++ {
			ld.refineOne(lv, comm, int32(c), members[start[c]:start[c+1]], pos, refined, sc)
		}
	})
	return refined
}

// refineOne refines community s, whose nodes are mem in random order.
func (ld *leiden) refineOne(lv *level, comm []int32, s int32, mem []int32, pos, refined []int32, sc *refineScratch) {
	if len(mem) == 1 {
		refined[mem[0]] = mem[0]
		return
	}
	scale := ld.gamma / lv.m2
	sc.grow(len(mem))
	for i, v := range mem {
		pos[v] = int32(i)
	}
	// The links inside the community, in local positions: the loop that
	// merges then reads small arrays instead of the graph's rows.
	sc.start, sc.at, sc.lw = append(sc.start[:0], 0), sc.at[:0], sc.lw[:0]
	KS := 0.0
	for i, v := range mem {
		sc.ref[i], sc.kref[i], sc.single[i] = int32(i), lv.k[v], true
		sc.ext[i] = sc.addInnerLinks(lv, comm, s, v, pos)
		KS += lv.k[v]
	}
	for i, v := range mem {
		if !sc.single[i] {
			continue
		}
		kv := lv.k[v]
		if sc.ext[i] < scale*kv*(KS-kv) {
			continue // not well connected to the rest of its community
		}
		for q := sc.start[i]; q < sc.start[i+1]; q++ {
			c := sc.ref[sc.at[q]]
			if sc.wTo[c] == 0 {
				sc.touched = append(sc.touched, c)
			}
			sc.wTo[c] += sc.lw[q]
		}
		if best := sc.bestMerge(int32(i), kv, KS, scale); best >= 0 {
			// Merge v into best: the edges between them become internal.
			sc.ext[best] += sc.ext[i] - 2*sc.wTo[best]
			sc.kref[best] += kv
			sc.ref[i] = best
			sc.single[i], sc.single[best] = false, false
		}
		for _, c := range sc.touched {
			sc.wTo[c] = 0
		}
		sc.touched = sc.touched[:0]
	}
	for i, v := range mem {
		refined[v] = mem[sc.ref[i]]
	}
}

// addInnerLinks appends the links of node v inside community s to sc (in
// local positions, through pos), closes v's row in sc.start and returns
// their total weight.
func (sc *refineScratch) addInnerLinks(lv *level, comm []int32, s, v int32, pos []int32) float64 {
	lo := lv.rowPtr[v]
	sc.labels = gatherLabels(sc.labels[:0], comm, lv.col[lo:lv.rowPtr[v+1]])
	ext := 0.0
	for q, c := range sc.labels {
		if c != s {
			continue
		}
		w := 1.0
		if lv.w != nil {
			w = lv.w[lo+int64(q)]
		}
		sc.at = append(sc.at, pos[lv.col[lo+int64(q)]])
		sc.lw = append(sc.lw, w)
		ext += w
	}
	sc.start = append(sc.start, int32(len(sc.at)))
	return ext
}

// bestMerge returns the touched refined community, other than i's own and
// itself well connected, that gains most from taking a node of degree kv
// (the last of the largest gains ≥ 0), or −1.
func (sc *refineScratch) bestMerge(i int32, kv, KS, scale float64) int32 {
	best, bestGain := int32(-1), 0.0
	for _, c := range sc.touched {
		if c == i || sc.ext[c] < scale*sc.kref[c]*(KS-sc.kref[c]) {
			continue
		}
		if gain := sc.wTo[c] - scale*kv*sc.kref[c]; gain >= bestGain {
			best, bestGain = c, gain
		}
	}
	return best
}

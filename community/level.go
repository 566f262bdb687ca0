package community

import "github.com/graphcloak/graphcloak/laplacian"

// level is one graph of the Leiden hierarchy in CSR form: node strengths k
// (of the original graph's nodes they stand for), links to other nodes, and
// the total weight of links inside each node (internal edges of the nodes
// it aggregates). The base level shares the graph's own arrays.
type level struct {
	n      int
	rowPtr []int64
	col    []int32
	w      []float64 // nil when every weight is 1
	k      []float64
	inner  []float64 // nil when no node has internal weight
	m2     float64   // 2m = Σ k
}

func levelOf(g *laplacian.Graph) *level {
	rowPtr, col, w := g.CSR()
	lv := &level{n: g.N(), rowPtr: rowPtr, col: col, w: w, k: g.Degrees()}
	for _, x := range lv.k {
		lv.m2 += x
	}
	return lv
}

// modularityGrain is the block size (in nodes) of the parallel sums; the
// partial sums are added in block order, so Q does not depend on the
// number of workers.
const modularityGrain = 1 << 14

// levelModularity computes Q from the definition: the weight inside
// communities (inner weights of aggregate nodes included) minus γ times
// the expected weight Σ_c K_c²/2m, over 2m. Labels must lie in 0..n−1.
func levelModularity(lv *level, part []int32, gamma float64, workers int) float64 {
	blocks := (lv.n + modularityGrain - 1) / modularityGrain
	partial := make([]float64, blocks)
	forBlocks(workers, lv.n, modularityGrain, func(_, lo, hi int) {
		in := 0.0
		for v := lo; v < hi; v++ {
			c := part[v]
			if lv.inner != nil {
				in += 2 * lv.inner[v]
			}
			for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
				if part[lv.col[p]] == c {
					if lv.w == nil {
						in++
					} else {
						in += lv.w[p]
					}
				}
			}
		}
		partial[lo/modularityGrain] = in
	})
	in := 0.0
	for _, x := range partial {
		in += x
	}
	K := make([]float64, lv.n)
	for v, c := range part {
		K[c] += lv.k[v]
	}
	exp := 0.0
	for _, x := range K {
		exp += x * x
	}
	return (in - gamma*exp/lv.m2) / lv.m2
}

// relabel maps the labels of part (each in 0..len(part)−1) to 0..k−1 in
// order of first appearance and returns k.
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

// groups lists the nodes of each of the k labels of part, each group in
// the order the nodes appear in order: group c is
// members[start[c]:start[c+1]].
func groups(part []int32, k int, order []int32) (start []int64, members []int32) {
	start = make([]int64, k+1)
	for _, c := range part {
		start[c+1]++
	}
	for c := 0; c < k; c++ {
		start[c+1] += start[c]
	}
	fill := append([]int64(nil), start[:k]...)
	members = make([]int32, len(part))
	for _, v := range order {
		c := part[v]
		members[fill[c]] = v
		fill[c]++
	}
	return start, members
}

// aggregateGrain is the number of links per block of aggregate rows.
const aggregateGrain = 1 << 15

// aggregate builds the graph whose nodes are the refined communities
// (labels 0..k−1) and returns it with each new node's community: the
// community (in comm) of its members, relabelled densely. Rows are built
// in parallel into per-block buffers and then copied in row order; each
// row lists its neighbours in the order its members' links first reach
// them, so the result does not depend on the workers.
func (ld *leiden) aggregate(lv *level, refined []int32, k int, comm []int32) (*level, []int32) {
	start, members := groups(refined, k, identity(lv.n))
	next := &level{n: k, rowPtr: make([]int64, k+1), k: make([]float64, k), inner: make([]float64, k), m2: lv.m2}
	nextComm := make([]int32, k)
	bounds, blockLinks := aggregateBlocks(lv, start, members, k)
	type buffer struct {
		col []int32
		w   []float64
	}
	bufs := make([]buffer, len(bounds)-1)
	ld.ensureScratch(k)
	forEach(ld.workers, len(bufs), 1, func(wk, b int) {
		sc := &ld.scratch[wk]
		buf := &bufs[b]
		buf.col, buf.w = make([]int32, 0, blockLinks[b]), make([]float64, 0, blockLinks[b])
		for r := bounds[b]; r < bounds[b+1]; r++ {
			rr := int32(r)
			kr, inner := 0.0, 0.0
			for _, v := range members[start[r]:start[r+1]] {
				kr += lv.k[v]
				if lv.inner != nil {
					inner += lv.inner[v]
				}
				inner = sc.addLinks(lv, refined, v, rr, inner)
			}
			for _, t := range sc.touched {
				buf.col = append(buf.col, t)
				buf.w = append(buf.w, sc.wTo[t])
				sc.wTo[t] = 0
			}
			sc.touched = sc.touched[:0]
			next.k[r], next.inner[r] = kr, inner
			next.rowPtr[r+1] = int64(len(buf.col)) // length within the block for now
			nextComm[r] = comm[members[start[r]]]
		}
	})
	// Row lengths → offsets, then copy each block to its place.
	offset := make([]int64, len(bufs))
	total := int64(0)
	for b := range bufs {
		offset[b] = total
		base := total
		for r := bounds[b]; r < bounds[b+1]; r++ {
			next.rowPtr[r+1] += base
		}
		total += int64(len(bufs[b].col))
	}
	next.col = make([]int32, total)
	next.w = make([]float64, total)
	forEach(ld.workers, len(bufs), 1, func(_, b int) {
		copy(next.col[offset[b]:], bufs[b].col)
		copy(next.w[offset[b]:], bufs[b].w)
		bufs[b] = buffer{}
	})
	relabel(nextComm)
	return next, nextComm
}

// aggregateBlocks cuts the k rows of the aggregate into blocks of
// consecutive rows holding about aggregateGrain links each: block b is
// rows bounds[b] … bounds[b+1]−1, and blockLinks[b] is an upper bound of
// its aggregate links.
func aggregateBlocks(lv *level, start []int64, members []int32, k int) (bounds []int, blockLinks []int64) {
	links, open := int64(0), false
	for r := 0; r < k; r++ {
		if !open {
			bounds, open = append(bounds, r), true
		}
		for _, v := range members[start[r]:start[r+1]] {
			links += lv.rowPtr[v+1] - lv.rowPtr[v]
		}
		if links >= aggregateGrain || r == k-1 {
			blockLinks = append(blockLinks, links)
			links, open = 0, false
		}
	}
	return append(bounds, k), blockLinks
}

// addLinks adds the links of member v of aggregate row rr: to other rows
// into sc.wTo (listing each row first reached in sc.touched), internal
// ones, each seen from both ends, as half their weight to inner, which it
// returns.
func (sc *moveScratch) addLinks(lv *level, refined []int32, v int32, rr int32, inner float64) float64 {
	lo := lv.rowPtr[v]
	sc.labels = gatherLabels(sc.labels[:0], refined, lv.col[lo:lv.rowPtr[v+1]])
	for q, t := range sc.labels {
		w := 1.0
		if lv.w != nil {
			w = lv.w[lo+int64(q)]
		}
		if t == rr {
			inner += w / 2 // each internal link is seen from both ends
			continue
		}
		if sc.wTo[t] == 0 {
			sc.touched = append(sc.touched, t)
		}
		sc.wTo[t] += w
	}
	return inner
}

func identity(n int) []int32 {
	id := make([]int32, n)
	for i := range id {
		id[i] = int32(i)
	}
	return id
}

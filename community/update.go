package community

import (
	"fmt"
	"slices"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Update returns a Leiden-valid partition of g that starts from prev, the
// partition of an earlier version of g carried onto g's nodes (prev[i] < 0
// for a node that is new), revisiting only what the change touched, in the
// manner of the dynamic frontier of DF-Leiden (Sahu, arXiv 2410.15451):
//
//  1. the changed nodes (those whose incident edges differ, see Carry) and
//     their neighbours are moved by local moving, and the neighbours of
//     every node that moves are visited in turn, until no move raises Q;
//  2. every community that changed (lost an edge or a node, or gained one)
//     is split into its connected pieces, and the pieces' nodes are moved
//     again, so every community stays connected.
//
// Communities far from the change are kept as they were: their aggregate
// levels are not rebuilt, which is what makes an update of a small batch
// cheap. Over many updates the partition can drift from what a fresh
// Leiden would find; recompute from scratch when the graph changed much
// (serve does when more than 1% of the nodes changed).
//
// Communities are labelled densely in order of each one's lowest node.
//
// Update panics if len(prev) != g.N() or a changed node is out of range.
func Update(g *laplacian.Graph, prev []int, changed []int32, opt LeidenOptions) ([]int, error) {
	n := g.N()
	if len(prev) != n {
		panic(fmt.Sprintf("community: Update needs a %d-long previous partition, got %d", n, len(prev)))
	}
	ld, err := newLeiden(opt)
	if err != nil {
		return nil, err
	}
	if g.NumEdges() == 0 {
		return identityInts(n), nil
	}
	comm := carryLabels(prev)
	lv := levelOf(g)
	active := make([]bool, n)
	for _, v := range changed {
		active[v] = true
		for p := lv.rowPtr[v]; p < lv.rowPtr[v+1]; p++ {
			active[lv.col[p]] = true
		}
	}
	ld.settle(lv, comm, active, ld.perm(n), false)
	relabel(comm)
	out := make([]int, n)
	for i, c := range comm {
		out[i] = int(c)
	}
	return out, nil
}

// settle moves the active nodes (nil: all) of the base level until no
// move raises Q, following the neighbours of every node that moves, then
// splits every community that a node left or joined (or that holds an
// active node) into its connected pieces and moves the pieces' nodes
// again, until nothing splits: the result is connected and no node can
// raise Q by moving to a neighbouring community. checked says comm is
// already known to admit no move that raises Q: the first moving is
// skipped (it would move nothing).
func (ld *leiden) settle(lv *level, comm []int32, active []bool, order []int32, checked bool) {
	n := lv.n
	dirty := make([]bool, n)
	for v := range comm {
		if active == nil || active[v] {
			dirty[comm[v]] = true
		}
	}
	before := append([]int32(nil), comm...)
	for round := 0; round < maxSplitRounds; round++ {
		if round > 0 || !checked {
			ld.moveNodes(lv, comm, active, order, 0)
		}
		for v := range comm {
			if comm[v] != before[v] {
				dirty[comm[v]], dirty[before[v]] = true, true
			}
		}
		if active = splitDirty(lv, comm, dirty, ld.workers); active == nil {
			return
		}
		copy(before, comm)
	}
}

// maxSplitRounds bounds the move-then-split rounds of Update; a split
// rarely lets a piece move elsewhere, so one or two rounds are the rule.
const maxSplitRounds = 8

// carryLabels relabels prev densely (labels of existing nodes in order of
// first appearance, then one new label for each new node), so every label
// lies in 0..n−1 as local moving requires.
func carryLabels(prev []int) []int32 {
	ids := make(map[int]int32)
	comm := make([]int32, len(prev))
	for i, c := range prev {
		if c < 0 {
			continue
		}
		id, ok := ids[c]
		if !ok {
			id = int32(len(ids))
			ids[c] = id
		}
		comm[i] = id
	}
	next := int32(len(ids))
	for i, c := range prev {
		if c < 0 {
			comm[i] = next
			next++
		}
	}
	return comm
}

// splitDirty splits every dirty community of comm into its connected
// pieces (the piece holding the community's first node keeps the label,
// the others take the lowest empty labels, in order of their first
// nodes), clears dirty, and returns the nodes of the pieces that got new
// labels marked active, or nil if nothing split. Communities are searched
// in parallel (each search stays inside its own community); the labels
// depend only on comm, never on the workers.
func splitDirty(lv *level, comm []int32, dirty []bool, workers int) []bool {
	n := lv.n
	start, members, dirtyComms := dirtyMembers(comm, dirty, n)
	// piece[v] is the first node of v's piece when that piece is not its
	// community's first, else −1.
	piece := make([]int32, n)
	seen := make([]bool, n)
	extra := make([][]int32, workers) // first nodes of the later pieces
	stacks := make([][]int32, workers)
	forEach(workers, len(dirtyComms), 64, func(w, i int) {
		c := dirtyComms[i]
		for _, s := range members[start[c]:start[c+1]] {
			if seen[s] {
				continue
			}
			first := int32(-1)
			if s != members[start[c]] {
				first = s
				extra[w] = append(extra[w], s)
			}
			seen[s] = true
			stacks[w] = lv.markPiece(comm, c, s, first, piece, seen, stacks[w])
		}
	})
	clear(dirty)
	var firsts []int32
	for _, e := range extra {
		firsts = append(firsts, e...)
	}
	if len(firsts) == 0 {
		return nil
	}
	slices.Sort(firsts)
	label := lowestFreeLabels(comm, firsts, n)
	active := make([]bool, n)
	for _, c := range dirtyComms {
		for _, v := range members[start[c]:start[c+1]] {
			if f := piece[v]; f >= 0 {
				comm[v] = label[f]
				active[v] = true
			}
		}
	}
	return active
}

// dirtyMembers returns the members of each dirty community of comm, in
// node order: those of c are members[start[c]:start[c+1]]; dirtyComms
// lists the dirty communities that have members.
func dirtyMembers(comm []int32, dirty []bool, n int) (start, members, dirtyComms []int32) {
	start = make([]int32, n+1)
	for _, c := range comm {
		if dirty[c] {
			start[c+1]++
		}
	}
	for c := 0; c < n; c++ {
		start[c+1] += start[c]
	}
	members = make([]int32, start[n])
	fill := append([]int32(nil), start[:n]...)
	for v, c := range comm {
		if dirty[c] {
			members[fill[c]] = int32(v)
			fill[c]++
		}
	}
	for c := range int32(n) {
		if start[c+1] > start[c] {
			dirtyComms = append(dirtyComms, c)
		}
	}
	return start, members, dirtyComms
}

// markPiece sets piece[v] = first for every node v of community c
// reachable from s (already seen) inside c, marking them seen; stack is
// scratch, returned for reuse.
func (lv *level) markPiece(comm []int32, c, s, first int32, piece []int32, seen []bool, stack []int32) []int32 {
	stack = append(stack[:0], s)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		piece[v] = first
		for _, u := range lv.col[lv.rowPtr[v]:lv.rowPtr[v+1]] {
			if comm[u] == c && !seen[u] { // seen only of c's nodes: other workers write the rest
				seen[u] = true
				stack = append(stack, u)
			}
		}
	}
	return stack
}

// lowestFreeLabels gives each of firsts (sorted), in order, the lowest
// label no node of comm has and no earlier first took.
func lowestFreeLabels(comm, firsts []int32, n int) map[int32]int32 {
	used := make([]bool, n)
	for _, c := range comm {
		used[c] = true
	}
	label := make(map[int32]int32, len(firsts))
	free := int32(0)
	for _, s := range firsts {
		for used[free] {
			free++
		}
		used[free] = true
		label[s] = free
	}
	return label
}

// Carry maps part, a partition of old, onto the nodes of g by node key
// (nodes of g absent from old get −1) and lists the nodes of g whose
// incident edges differ from old's (a neighbour added or removed, or a
// weight changed), in index order: the input of Update. It is O(n + |E|)
// with one key lookup per node.
//
// Carry panics if len(part) != old.N().
func Carry(old *laplacian.Graph, part []int, g *laplacian.Graph) (prev []int, changed []int32) {
	if len(part) != old.N() {
		panic("community: partition length does not match the old graph")
	}
	n := g.N()
	prev = make([]int, n)
	oldOf := make([]int32, n) // old index of each node of g, −1 if new
	newOf := make([]int32, old.N())
	for i := range newOf {
		newOf[i] = -1
	}
	for i := 0; i < n; i++ {
		j, ok := old.IndexOf(g.Key(i))
		if !ok {
			prev[i], oldOf[i] = -1, -1
			continue
		}
		prev[i], oldOf[i], newOf[j] = part[j], int32(j), int32(i)
	}
	mark := make([]float64, n) // weight of each old neighbour, by new index
	for i := 0; i < n; i++ {
		j := oldOf[i]
		if j < 0 {
			changed = append(changed, int32(i))
			continue
		}
		cols, ws := g.Neighbors(i)
		ocols, ows := old.Neighbors(int(j))
		diff := len(cols) != len(ocols)
		for q, x := range ocols {
			u := newOf[x]
			if u < 0 {
				diff = true
				continue
			}
			mark[u] = weightAt(ows, q)
		}
		for q, u := range cols {
			if mark[u] != weightAt(ws, q) {
				diff = true
			}
		}
		for _, x := range ocols {
			if u := newOf[x]; u >= 0 {
				mark[u] = 0
			}
		}
		if diff {
			changed = append(changed, int32(i))
		}
	}
	return prev, changed
}

func weightAt(w []float64, q int) float64 {
	if w == nil {
		return 1
	}
	return w[q]
}

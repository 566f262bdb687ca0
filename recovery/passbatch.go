package recovery

import (
	"math"
	"slices"
)

// The second action of the pass runs on the columns that can keep a pair
// (keepsNothing), gathered across blocks into
// batches of applyWidth: a block's kept columns once went to the action
// alone, padded with columns that keep nothing to a multiple of 8 (the
// kernel's chunks) — on LFR 2·10⁴ at τ = 1, 26 % of the columns keep
// nothing but only 16 % were skipped, and a kept count of 24 ran as 16 +
// 8 columns. Each column's correlations are the same bit for bit in any
// batch of two or more (the block kernel computes every column alike,
// TestApplyWideIsOneApplication), so the pairs are the unbatched pass's.

// pendingBlock is a block of the pass whose kept columns wait for their
// second action.
type pendingBlock struct {
	lo, b int
	// left is how many of its columns are still to correlate; pairs what
	// its correlated columns kept.
	left, correlated int
	pairs            []Pair
}

// rowBatch is a worker's batch: up to applyWidth centred columns (n×
// applyWidth, row-major, in the worker's bufRows) of the blocks in owner.
type rowBatch struct {
	nodes []int
	owner []*pendingBlock
}

// queue adds the block's centred columns P (n×b, nodes lo …) that can keep
// a pair to w's batch, correlating each batch as it fills (flush), and
// calls done with every block all of whose columns are correlated: this
// one at once when none can keep a pair.
func (c *Certifier) queue(w *passWorker, P, norm []float64, lo, b int, done func(*pendingBlock)) {
	n := c.g.N()
	cmin := candidateCos(c.tol)
	chord := math.Sqrt(2 - 2*cmin)
	var kept [blockSize]int
	blk := &pendingBlock{lo: lo, b: b}
	for k := range b {
		if !c.keepsNothing(P, b, k, lo+k, norm[lo+k], cmin, chord) {
			kept[blk.left] = k
			blk.left++
		}
	}
	if blk.left == 0 {
		done(blk)
		return
	}
	batch := w.bufs[bufRows][:n*applyWidth]
	for _, k := range kept[:blk.left] {
		q := len(w.batch.nodes)
		for i := range n {
			batch[i*applyWidth+q] = P[i*b+k]
		}
		w.batch.nodes = append(w.batch.nodes, lo+k)
		w.batch.owner = append(w.batch.owner, blk)
		if len(w.batch.nodes) == applyWidth {
			c.flush(w, norm, done)
		}
	}
}

// flush runs the second action on w's batch and hands each column's pairs
// to its block, calling done with the blocks it completes. A batch of
// one column is applied with a copy of it beside (a one-column action
// takes another kernel, rounded differently), whose result is dropped.
func (c *Certifier) flush(w *passWorker, norm []float64, done func(*pendingBlock)) {
	m := len(w.batch.nodes)
	if m == 0 {
		return
	}
	n := c.g.N()
	batch := w.bufs[bufRows][:n*applyWidth]
	width, nodes := m, w.batch.nodes
	if m == 1 {
		width, nodes = 2, []int{nodes[0], nodes[0]}
	}
	// The batch's columns packed at their width (stride applyWidth in the
	// buffer), as the action and columnPairs read them.
	X := batch
	if width < applyWidth {
		X = w.bufs[bufPacked][:n*width]
		for i := range n {
			copy(X[i*width:i*width+width], batch[i*applyWidth:i*applyWidth+width])
		}
	}
	C := w.bufs[bufCorr][:n*width]
	correlateWith(w.act, C, X, width, w)
	cmin := candidateCos(c.tol)
	lists := c.columnPairs(X, C, norm, nodes, cmin, math.Sqrt(2-2*cmin))
	for q := range m {
		blk := w.batch.owner[q]
		blk.pairs = append(blk.pairs, lists[q]...)
		blk.correlated++
		if blk.left--; blk.left == 0 {
			done(blk)
		}
	}
	w.batch.nodes, w.batch.owner = w.batch.nodes[:0], slices.Delete(w.batch.owner, 0, len(w.batch.owner))
}

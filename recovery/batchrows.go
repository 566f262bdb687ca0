package recovery

import (
	"math"
	"slices"

	"github.com/graphcloak/graphcloak/expm"
)

// passBatch is how many blocks a worker of the pass takes at once: their
// second actions share the kernel's 16-wide slices (batchRows), so the
// rows that keep nothing are left out of all of them together, not
// padded back to a multiple of 8 block by block (on LFR 2·10⁴, 26 % of
// the rows keep nothing, but a block at a time left out only 16 %).
const passBatch = 2

// centredBlock is a block of the pass after its first action: its
// centred columns P (n×b, row-major), nodes lo … lo+b−1.
type centredBlock struct {
	lo, b int
	P     []float64
}

// blockResult is what a block's second action found: its pairs and how
// many of its columns were correlated.
type blockResult struct {
	pairs      []Pair
	correlated int
}

// batchRows is blockRows for several blocks at once: with the sparse
// action and no EdgeTerms, the columns of every block that can keep a
// pair (keepsNothing) go through one second action, padded to a
// multiple of 8 with columns that keep nothing (never one column: a
// one-column action takes another kernel). Each column of the block
// kernel is computed alike whatever its neighbours in the block, so
// every correlation, and every pair, is the one blockRows finds.
func (c *Certifier) batchRows(blks []centredBlock, norm []float64, terms *EdgeTerms) []blockResult {
	out := make([]blockResult, len(blks))
	if _, sparse := c.act.(*expm.Chebyshev); !sparse || terms != nil || len(blks) == 1 {
		for i, bl := range blks {
			out[i].pairs, out[i].correlated = c.blockRows(bl.P, norm, bl.lo, bl.b, terms)
		}
		return out
	}
	n := c.g.N()
	cmin := candidateCos(c.tol)
	chord := math.Sqrt(2 - 2*cmin)
	keep, total := c.keptColumns(blks, norm, cmin, chord)
	if total == 0 {
		return out
	}
	X := make([]float64, n*total)
	off := 0
	for i, bl := range blks {
		for q, k := range keep[i] {
			for r := 0; r < n; r++ {
				X[r*total+off+q] = bl.P[r*bl.b+k]
			}
		}
		off += len(keep[i])
	}
	C := make([]float64, n*total)
	c.correlate(C, X, total)
	off = 0
	for i, bl := range blks {
		w := len(keep[i])
		if w == 0 {
			continue
		}
		Q, Cb, nodes := make([]float64, n*w), make([]float64, n*w), make([]int, w)
		for q, k := range keep[i] {
			nodes[q] = bl.lo + k
		}
		for r := 0; r < n; r++ {
			copy(Q[r*w:(r+1)*w], X[r*total+off:r*total+off+w])
			copy(Cb[r*w:(r+1)*w], C[r*total+off:r*total+off+w])
		}
		out[i] = blockResult{c.blockPairs(Q, Cb, norm, nodes, cmin, chord), w}
		off += w
	}
	return out
}

// keptColumns returns, for each block, the columns (ascending) whose
// row can keep a pair, with columns that keep nothing added until their
// total is a multiple of 8 (the block kernel's full chunks), and that
// total.
func (c *Certifier) keptColumns(blks []centredBlock, norm []float64, cmin, chord float64) ([][]int, int) {
	keep := make([][]int, len(blks))
	var spare [][2]int
	total := 0
	for i, bl := range blks {
		for k := 0; k < bl.b; k++ {
			j := bl.lo + k
			if c.keepsNothing(bl.P, bl.b, k, j, norm[j], cmin, chord) {
				spare = append(spare, [2]int{i, k})
				continue
			}
			keep[i] = append(keep[i], k)
			total++
		}
	}
	if total == 0 {
		return keep, 0
	}
	for s := 0; total%8 != 0 && s < len(spare); s++ {
		keep[spare[s][0]] = append(keep[spare[s][0]], spare[s][1])
		total++
	}
	for i := range keep {
		slices.Sort(keep[i])
	}
	return keep, total
}

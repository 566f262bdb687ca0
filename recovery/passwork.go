package recovery

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
)

// passWorker is one goroutine of the pass: the action it applies and the
// buffers it reuses from block to block (a fresh n×32 block for each of
// them, a few each block, was most of the pass's page faults and
// zeroing: issue 79). A nil *passWorker allocates (one-off callers).
type passWorker struct {
	act expm.Action
	// x holds the block's unit columns (zero between blocks), cols their
	// action; bufs are the other n×blockSize blocks (bufCentred …); xs
	// and ds n×applyWidth (applyWide's slices).
	x, cols, xs, ds []float64
	bufs            [bufCount][]float64
	// batch is the columns waiting for the second action (passbatch.go).
	batch rowBatch
	// sum, comp and sq are per-column accumulators (blockSize).
	sum, comp, sq []float64
}

// The n×blockSize buffers of a passWorker besides x and cols.
const (
	bufCentred = iota // the centred columns (centeredBlock)
	bufRows           // the columns waiting for the second action (the batch, queue)
	bufCorr           // their correlations (blockRows, flush)
	bufPacked         // a batch's last columns, packed (flush)
	bufCount
)

// newPassWorker returns a worker of the pass on n nodes applying act.
func newPassWorker(act expm.Action, n int) *passWorker {
	nb, nw := n*blockSize, n*applyWidth
	w := &passWorker{act: act, x: make([]float64, nb), cols: make([]float64, nb), xs: make([]float64, nw), ds: make([]float64, nw),
		sum: make([]float64, blockSize), comp: make([]float64, blockSize), sq: make([]float64, blockSize)}
	for i := range w.bufs {
		w.bufs[i] = make([]float64, nb)
	}
	return w
}

// buf returns the first size entries of the worker's buffer which (a
// bufCentred …), or a new slice for a nil worker.
func (w *passWorker) buf(which, size int) []float64 {
	if w == nil {
		return make([]float64, size)
	}
	return w.bufs[which][:size]
}

// acc returns three per-column accumulators of b entries, zeroed.
func (w *passWorker) acc(b int) (sum, comp, sq []float64) {
	if w == nil {
		return make([]float64, b), make([]float64, b), make([]float64, b)
	}
	sum, comp, sq = w.sum[:b], w.comp[:b], w.sq[:b]
	clear(sum)
	clear(comp)
	clear(sq)
	return sum, comp, sq
}

// columns returns â_lo … â_{lo+b−1} (n×b, row-major) in the worker's
// buffer.
func (w *passWorker) columns(lo, b, n int) []float64 {
	x, cols := w.x[:n*b], w.cols[:n*b]
	for k := 0; k < b; k++ {
		x[(lo+k)*b+k] = 1
	}
	applyWide(w.act, cols, x, b, w)
	for k := 0; k < b; k++ {
		x[(lo+k)*b+k] = 0 // zero again for the next block
	}
	return cols
}

// columnMeans sets mean[k] to the mean of column k of the n×b block y,
// each by Neumaier summation in row order: bit for bit centered's ȳ of
// that column, without copying it out.
func columnMeans(y []float64, n, b int, sum, comp, mean []float64) {
	for i := 0; i < n; i++ {
		row := y[i*b : i*b+b]
		for k, v := range row {
			s := sum[k]
			t := s + v
			if math.Abs(s) >= math.Abs(v) {
				comp[k] += (s - t) + v
			} else {
				comp[k] += (v - t) + s
			}
			sum[k] = t
		}
	}
	for k := range mean {
		mean[k] = (sum[k] + comp[k]) / float64(n)
	}
}

// forBlocks calls visit with the columns of each of the given blocks of
// blockSize (block b holds columns b·blockSize …), on up to GOMAXPROCS
// goroutines, each a passWorker (each block's columns are independent),
// and end with each worker that ran a block once the blocks are done.
// With a block for every goroutine, each applies the sparse action on
// its own goroutine (expm.Chebyshev.WithWorkers(1), the same numbers bit
// for bit): the blocks run in parallel, and nothing waits at every
// Chebyshev step for the other half of a product (issue 79).
func forBlocks(ctx context.Context, act expm.Action, n int, blocks []int, visit func(w *passWorker, lo, b int, cols []float64), end func(w *passWorker)) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	if ch, ok := act.(*expm.Chebyshev); ok && workers > 1 && len(blocks) >= workers {
		act = ch.WithWorkers(1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w *passWorker
			for blk := range next {
				if w == nil {
					w = newPassWorker(act, n)
				}
				lo := blk * blockSize
				b := min(blockSize, n-lo)
				visit(w, lo, b, w.columns(lo, b, n))
			}
			if w != nil && ctx.Err() == nil {
				end(w)
			}
		}()
	}
	var err error
	for _, blk := range blocks {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- blk
	}
	close(next)
	wg.Wait()
	return err
}

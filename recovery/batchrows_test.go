package recovery

import (
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestBatchRowsAsBlockRows (issue 79): the second action over two
// blocks at once (batchRows) finds, bit for bit, the pairs blockRows
// finds a block at a time — the oracle — while correlating fewer
// columns, on a preferential-attachment graph where many rows keep
// nothing, and on the sparse action only (the dense one, and a pass
// filling EdgeTerms, keep a block at a time).
func TestBatchRowsAsBlockRows(t *testing.T) {
	g, err := laplacian.PreferentialAttachment(1500, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	tol := DefaultFitTolerance
	act, err := action(g, 1, tol, false)
	if err != nil {
		t.Fatal(err)
	}
	c := &Certifier{g: g, act: act, tau: 1, tol: tol, eta: act.ErrorBound(), mode: passFull}
	n := g.N()
	norm := make([]float64, n)
	var blks []centredBlock
	for lo := 0; lo < n; lo += blockSize {
		b := min(blockSize, n-lo)
		cols := make([]float64, n*b)
		c.columns(lo, b, cols)
		blks = append(blks, centredBlock{lo: lo, b: b, P: centeredBlock(cols, n, b, lo, norm)})
	}
	batched, single := 0, 0
	for i := 0; i+1 < len(blks); i += 2 {
		got := c.batchRows(blks[i:i+2], norm, nil)
		for k, bl := range blks[i : i+2] {
			want, correlated := c.blockRows(bl.P, norm, bl.lo, bl.b, nil)
			if !slices.Equal(got[k].pairs, want) {
				t.Fatalf("block %d: %d pairs batched, %d a block at a time (or they differ)", bl.lo/blockSize, len(got[k].pairs), len(want))
			}
			batched += got[k].correlated
			single += correlated
		}
	}
	t.Logf("columns correlated: %d batched, %d a block at a time", batched, single)
	if batched >= single {
		t.Errorf("batched correlated %d columns, no fewer than %d a block at a time", batched, single)
	}
}

package recovery

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/graphcloak/graphcloak/laplacian"
)

// EdgeTerms are what a certifier's pass proves, as a by-product, of every
// edge's sensitivity term q_ij = ‖a_i − a_j‖² = ‖exp(−τL)(e_i − e_j)‖²
// (Δ2 is α times the root of its largest; docs/derivations.md §5.4). Row j
// of the pass's correlations holds ĉ_ij ≈ ⟨P·a_i, P·a_j⟩ for every i, and
// as a_i − a_j is orthogonal to 1,
//
//	q_ij = c_ii + c_jj − 2c_ij,
//
// each entry within η·(N̂_i + N̂_j + η) + 14u of the exact one (η the
// action's certified error, N̂ the computed norms ‖P·â‖): so q̂_ij is
// within 4η·(N̂_i + N̂_j + η) + 72u of q_ij, and Bracket adds 128u. A pass
// already costs two actions per source; the Δ2 of the same graph and τ
// then needs only the few edges whose brackets reach the largest lower
// bound refined (sensitivity.Options.Known) instead of a pass of its own.
//
// Set CertifierOptions.EdgeTerms to a new EdgeTerms to have an unsharded
// pass fill it; Complete reports whether the last pass computed every
// column (a pass resumed from a checkpoint did not).
type EdgeTerms struct {
	g     *laplacian.Graph
	eta   float64
	norm  []float64
	diag  []float64 // ĉ_jj
	cross []float64 // per CSR slot p of row j (neighbour i = col[p]): ĉ_ij from row j
	cols  atomic.Int64
}

// reset readies t for a pass of g whose action has error bound eta and
// whose norms are written to norm.
func (t *EdgeTerms) reset(g *laplacian.Graph, eta float64, norm []float64) {
	_, col, _ := g.CSR()
	t.g, t.eta, t.norm = g, eta, norm
	t.diag = make([]float64, g.N())
	t.cross = make([]float64, len(col))
	t.cols.Store(0)
}

// take keeps, from the correlations C (n×b, row-major) of columns lo …
// lo+b−1, their diagonal entries and their entries at each neighbour.
func (t *EdgeTerms) take(C []float64, lo, b int) {
	rowPtr, col, _ := t.g.CSR()
	for k := range b {
		j := lo + k
		t.diag[j] = C[j*b+k]
		for p := rowPtr[j]; p < rowPtr[j+1]; p++ {
			t.cross[p] = C[int(col[p])*b+k]
		}
	}
	t.cols.Add(int64(b))
}

// Complete reports whether the pass computed every column.
func (t *EdgeTerms) Complete() bool {
	return t != nil && t.g != nil && t.cols.Load() == int64(t.g.N())
}

// Bracket returns lo ≤ q_ij ≤ up for the edge (i, j) of the pass's graph;
// ok is false when (i, j) is no edge or the pass was not Complete. Both
// rows' entries give a bracket: it returns their intersection.
func (t *EdgeTerms) Bracket(i, j int) (lo, up float64, ok bool) {
	if !t.Complete() || i == j || i < 0 || j < 0 || i >= t.g.N() || j >= t.g.N() {
		return 0, 0, false
	}
	pij, okI := t.slot(i, j)
	pji, okJ := t.slot(j, i)
	if !okI || !okJ {
		return 0, 0, false
	}
	// ‖p̂‖ ≤ N̂·(1 + (n+2)u): the computed norm's own rounding.
	grow := 1 + float64(t.g.N()+2)*unitRoundoff
	margin := (4*t.eta*((t.norm[i]+t.norm[j])*grow+t.eta) + 128*unitRoundoff) * (1 + 8*unitRoundoff)
	lo, up = 0, math.Inf(1)
	for _, c := range []float64{t.cross[pij], t.cross[pji]} {
		q := t.diag[i] + t.diag[j] - 2*c
		lo = math.Max(lo, (q-margin)*(1-4*unitRoundoff))
		up = math.Min(up, (q+margin)*(1+4*unitRoundoff))
	}
	return lo, up, lo <= up
}

// slot returns the CSR position of neighbour j in row i.
func (t *EdgeTerms) slot(i, j int) (int64, bool) {
	rowPtr, col, _ := t.g.CSR()
	row := col[rowPtr[i]:rowPtr[i+1]]
	k, found := slices.BinarySearch(row, int32(j))
	return rowPtr[i] + int64(k), found
}

package recovery

import "fmt"

// MaxRowsEntries bounds the dense model Rows forms: len(rows)·N() entries
// (2^24, 128 MiB of float64).
const MaxRowsEntries = 1 << 24

// Rows returns the model of the given sensors only: the forward operator
//
//	M_S = P_S·M   (the rows of M in rows' order, every source location kept)
//
// of a release in which only the nodes rows reported. Recovery then fits
// the readings of those sensors alone; the source may sit anywhere. It is
// a dense model, each row formed as Mᵀe_i (len(rows) products with Mᵀ),
// refused above MaxRowsEntries. Rows panics on an index outside [0, M()).
func (md *Model) Rows(rows []int) (*Model, error) {
	n := md.n
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no sensor rows", ErrBadProblem)
	}
	if len(rows)*n > MaxRowsEntries {
		return nil, fmt.Errorf("%w: %d sensor rows of %d source locations form %d entries, more than %d: a release with missing sensors on a graph this large is not supported",
			ErrBadProblem, len(rows), n, len(rows)*n, MaxRowsEntries)
	}
	out := &Model{n: n, m: len(rows), dense: make([]float64, len(rows)*n), colN2: make([]float64, n)}
	e := make([]float64, md.m)
	for k, i := range rows {
		if i < 0 || i >= md.m {
			panic(fmt.Sprintf("recovery: Rows: row %d outside [0, %d)", i, md.m))
		}
		e[i] = 1
		row := out.dense[k*n : k*n+n]
		md.ApplyT(row, e) // row i of M is Mᵀe_i
		e[i] = 0
		for j, x := range row {
			out.colN2[j] += x * x
		}
	}
	return out, nil
}

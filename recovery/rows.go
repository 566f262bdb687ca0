package recovery

import (
	"fmt"
	"math/rand/v2"
)

// MaxRowsEntries bounds the dense model Rows forms from a dense or
// spectral model: len(rows)·N() entries (2^24, 128 MiB of float64). A
// graph's operator model is restricted without forming anything.
const MaxRowsEntries = 1 << 24

// ExactRowNormsWork bounds the work of the exact column norms of a
// restricted operator model, counted as len(rows)·degree·nnz(L) (one
// action of the Chebyshev series per reporting sensor): about a second on
// the reference 2-core machine. Above it the norms are the randomised
// estimate of the full operator model's kind (ColumnNorms2).
const ExactRowNormsWork = 2e9

// exactRowNormsWork is the bound rowNorms applies: ExactRowNormsWork,
// lowered by tests to reach the estimate on small graphs.
var exactRowNormsWork = ExactRowNormsWork

// Rows returns the model of the given sensors only: the forward operator
//
//	M_S = R_S·M   (the rows of M in rows' order, every source location kept)
//
// of a release in which only the nodes rows reported. Recovery then fits
// the readings of those sensors alone; the source may sit anywhere.
//
// On an operator model (a graph above GraphOptions.DenseLimit) nothing is
// formed: M_S f = R_S·(exp(−τL) f) and M_Sᵀ z = exp(−τL)·R_Sᵀ z are
// actions of the same certified Chebyshev series (exp(−τL) is symmetric),
// so a graph of 10⁵ nodes with any sensors missing costs what the full
// release costs. Its column norms ‖M_S e_s‖² = Σ_{i∈S} A_is² are exact
// (one action per reporting sensor) when that is at most
// ExactRowNormsWork, else estimated (see ColumnNorms2).
//
// On a dense or spectral model it is a dense model, each row formed from
// M, refused above MaxRowsEntries. Rows panics on an index outside
// [0, M()) and on a model that is itself restricted.
func (md *Model) Rows(rows []int) (*Model, error) {
	n := md.n
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: no sensor rows", ErrBadProblem)
	}
	if md.sel != nil {
		panic("recovery: Rows of a restricted model")
	}
	for _, i := range rows {
		if i < 0 || i >= md.m {
			panic(fmt.Sprintf("recovery: Rows: row %d outside [0, %d)", i, md.m))
		}
	}
	if md.op != nil {
		return &Model{n: n, m: len(rows), op: md.op, graph: md.graph, probes: md.probes, seed: md.seed,
			sel: append([]int(nil), rows...)}, nil
	}
	if len(rows)*n > MaxRowsEntries {
		return nil, fmt.Errorf("%w: %d sensor rows of %d source locations form %d entries, more than %d",
			ErrBadProblem, len(rows), n, len(rows)*n, MaxRowsEntries)
	}
	out := &Model{n: n, m: len(rows), dense: make([]float64, len(rows)*n), colN2: make([]float64, n), graph: md.graph}
	e := make([]float64, md.m)
	for k, i := range rows {
		row := out.dense[k*n : k*n+n]
		if md.dense != nil {
			copy(row, md.dense[i*n:i*n+n])
		} else {
			e[i] = 1
			md.ApplyT(row, e) // row i of M is Mᵀe_i
			e[i] = 0
		}
		for j, x := range row {
			out.colN2[j] += x * x
		}
	}
	return out, nil
}

// Restricted reports whether md is an operator model restricted to some
// sensors (Rows of an operator model).
func (md *Model) Restricted() bool { return md.sel != nil }

// scatter returns R_Sᵀ y: y's entries at the reporting rows of a full
// vector, zero elsewhere.
func (md *Model) scatter(y []float64) []float64 {
	full := make([]float64, md.n)
	for k, i := range md.sel {
		full[i] = y[k]
	}
	return full
}

// rowNorms sets the column norms of a restricted operator model,
// Σ_{i∈S} A_is² for every source s: exactly when ExactRowNormsWork allows
// (rowNormsExact), else estimated (rowNormsProbed).
func (md *Model) rowNorms() {
	nnz := float64(2*md.graph.NumEdges() + md.n)
	if float64(len(md.sel))*float64(md.op.Degree())*nnz <= exactRowNormsWork {
		md.colN2 = md.rowNormsExact()
		return
	}
	md.colN2, md.probed = md.rowNormsProbed()
	md.approx = true
}

// rowNormsExact is Σ_{i∈S} (A e_i)_s² for every s: the columns A e_i of
// the reporting sensors (A is symmetric, so column i is row i), 32 at a
// time, their squares summed.
func (md *Model) rowNormsExact() []float64 {
	const block = 32
	n := md.n
	out := make([]float64, n)
	x, y := make([]float64, n*block), make([]float64, n*block)
	for lo := 0; lo < len(md.sel); lo += block {
		b := min(block, len(md.sel)-lo)
		clear(x[:n*b])
		for k, i := range md.sel[lo : lo+b] {
			x[i*b+k] = 1
		}
		md.op.Apply(y[:n*b], x[:n*b], b)
		for s := range n {
			t := 0.0
			for _, v := range y[s*b : s*b+b] {
				t += v * v
			}
			out[s] += t
		}
	}
	return out
}

// rowNormsProbed estimates Σ_{i∈S} A_is² as the full operator model
// estimates ‖A e_s‖² (estimateColNorms), on the reporting rows. With
// P₀ the average over s's component C (size c, p = 1/c) and B = A − P₀
// (A P₀ = P₀, and A, P₀ vanish across components),
//
//	Σ_{i∈S} A_is² = Σ_{i∈S∩C} (p + B_is)² = 2p·(A 1_S)_s − p²·|S∩C| + Σ_{i∈S} B_is²,
//
// the first two terms exact (one action on 1_S) and the last the mean of
// ((B D v)_s)² over Probes Rademacher vectors v, D = diag(1_S): for
// independent ±1 entries E[((B D v)_s)²] = Σ_{i∈S} B_is².
func (md *Model) rowNormsProbed() (norms, probed []float64) {
	n, b := md.n, md.probes+1 // the last column is 1_S
	cnt, label := md.graph.Components()
	size := make([]float64, cnt)
	inS := make([]float64, cnt)
	for _, c := range label {
		size[c]++
	}
	for _, i := range md.sel {
		inS[label[i]]++
	}
	rng := rand.New(rand.NewPCG(md.seed, 0x9e3779b97f4a7c15))
	x := make([]float64, n*b)
	for _, i := range md.sel {
		for p := range md.probes {
			x[i*b+p] = float64(1 - 2*int(rng.Uint64()&1))
		}
		x[i*b+md.probes] = 1
	}
	y := make([]float64, n*b)
	md.op.Apply(y, x, b)
	// (P₀ D v)_s: the probes' per-component means over the reporting rows.
	mean := make([]float64, cnt*md.probes)
	for _, i := range md.sel {
		c := int(label[i])
		for p := range md.probes {
			mean[c*md.probes+p] += x[i*b+p]
		}
	}
	norms, probed = make([]float64, n), make([]float64, n)
	for s := range n {
		c := int(label[s])
		p0 := 1 / size[c]
		t := 0.0
		for p := range md.probes {
			d := y[s*b+p] - mean[c*md.probes+p]*p0
			t += d * d
		}
		probed[s] = t / float64(md.probes)
		norms[s] = max(0, 2*p0*y[s*b+md.probes]-p0*p0*inS[c]+probed[s])
	}
	return norms, probed
}

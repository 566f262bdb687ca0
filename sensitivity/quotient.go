package sensitivity

import (
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
)

// lanczosOp is the symmetric matrix the Lanczos recurrences multiply by: a
// graph's Laplacian L (newGraphOp), or L on the vectors constant on every
// class of false twins (newTwinOp).
//
// The twin quotient. Let S be the vectors constant on each twin class
// (twins). S is invariant under L: twins u, v have equal degree and equal
// weighted neighbour lists, so (Lx)_u = (Lx)_v when x is constant on
// classes. Φy = Σ_T y_T 1_T/√t_T (t_T the class size) maps R^{classes}
// isometrically onto S, and L_q = ΦᵀLΦ has diagonal d_T (no two twins are
// adjacent) and, for classes T, T' joined by edges of weight w (then every
// member of T is joined to every member of T'), off-diagonal −w√(t_T t_T').
// So L_q is symmetric positive semidefinite and e^{−τL}Φ = Φe^{−τL_q}.
//
// For an edge (i, j), i ∈ T, j ∈ T', write e_i = 1_T/t_T + (e_i − 1_T/t_T).
// The second part is a combination of differences of twins, an eigenvector
// of L with eigenvalue d_T (twins.go), orthogonal to S; so is e_j's, and
// the two have disjoint supports. Hence, with b_q = e_T/√t_T − e_T'/√t_T',
//
//	‖e^{−τL}(e_i − e_j)‖² = ‖e^{−τL_q}b_q‖² + e^{−2τd_T}(1 − 1/t_T) + e^{−2τd_T'}(1 − 1/t_T').
//
// Lanczos on L_q brackets the first term; the others are closed forms
// (twinShare). On the AS graph the quotient has 52 % of the nodes and 67 %
// of the edges, and every Lanczos step costs in proportion.
type lanczosOp struct {
	g     *laplacian.Graph // the off-diagonal pattern and weights
	deg   []float64        // the diagonal
	omega []float64        // rounding weights of one product (newLanczosWeights)
	row   []int32          // graph node → row; nil for the graph itself
	size  []int32          // twin class size of each row
	terms []int32          // weights summed into each row's diagonal
}

// newGraphOp is the Laplacian of g itself.
func newGraphOp(g *laplacian.Graph) *lanczosOp {
	return &lanczosOp{g: g, deg: g.Degrees(), omega: newLanczosWeights(g, g.Degrees(), nil)}
}

// newTwinOp is the twin quotient of g (lanczosOp), or g itself when g has
// no twins.
func newTwinOp(g *laplacian.Graph) *lanczosOp {
	tw := falseTwins(g)
	n := g.N()
	op := &lanczosOp{row: make([]int32, n)}
	for v := 0; v < n; v++ {
		if tw.rep[v] == v {
			cols, _ := g.Neighbors(v)
			op.row[v] = int32(len(op.size))
			op.size = append(op.size, tw.cnt[v])
			op.deg = append(op.deg, g.Degree(v))
			op.terms = append(op.terms, int32(len(cols)))
		}
	}
	if len(op.size) == n {
		return newGraphOp(g)
	}
	for v := range n {
		op.row[v] = op.row[tw.rep[v]]
	}
	var edges []laplacian.Edge
	for v := 0; v < n; v++ {
		if tw.rep[v] != v {
			continue
		}
		cols, ws := g.Neighbors(v)
		for k, c := range cols {
			a, b := op.row[v], op.row[c]
			if tw.rep[c] != int(c) || b < a {
				continue // one member per neighbouring class, each pair once
			}
			w := 1.0
			if ws != nil {
				w = ws[k]
			}
			edges = append(edges, laplacian.Edge{U: a, V: b, Weight: w * math.Sqrt(float64(op.size[a])*float64(op.size[b]))})
		}
	}
	q, err := laplacian.FromEdges(len(op.size), nil, edges, laplacian.Options{Duplicates: laplacian.DuplicatesReject})
	if err != nil { // not reachable: the weights are positive and no class is joined to itself
		return newGraphOp(g)
	}
	op.g = q
	op.omega = newLanczosWeights(q, op.deg, op.terms)
	return op
}

// start loads lw with the start vector of edge (i, j) of the graph: b_e/√2
// on the graph itself, b_q/‖b_q‖ on the quotient. Between classes of one
// member each, b_q = e_T − e_T' and the recurrence is the graph's own.
func (op *lanczosOp) start(lw *lanczosWork, i, j int) {
	if op.row == nil {
		lw.start(i, j)
		return
	}
	a, b := int(op.row[i]), int(op.row[j])
	if op.size[a] == 1 && op.size[b] == 1 {
		lw.start(a, b)
		return
	}
	// ν̂v₁ = b_q(1 + θ₃) entrywise for the computed ν̂, whatever its rounding.
	sa, sb := 1/math.Sqrt(float64(op.size[a])), 1/math.Sqrt(float64(op.size[b]))
	nb := math.Sqrt(sa*sa + sb*sb)
	v := lw.vec(0)
	clear(v)
	v[a], v[b] = sa/nb, -sb/nb
	lw.nb, lw.startErr = nb, 8*roundoffU*nb
	lw.vnorm[0] = 1 + 16*roundoffU
	loA, upA := op.twinShare(a, lw.tau)
	loB, upB := op.twinShare(b, lw.tau)
	lw.twinLo, lw.twinUp = (loA+loB)*(1-roundoffU), (upA+upB)*(1+roundoffU)
}

// twinShare brackets e^{−2τd}(1 − 1/t) for row a: the computed diagonal d̂
// is within γ_m of d (m summed weights), and the product 2τd̂, exp and the
// final products each round by at most an ulp, all covered by γ_{m+8}.
func (op *lanczosOp) twinShare(a int, tau float64) (lo, up float64) {
	t := float64(op.size[a])
	if t == 1 {
		return 0, 0
	}
	x, gm := 2*tau*op.deg[a], highamGamma(int(op.terms[a])+8)
	share := 1 - 1/t
	return math.Exp(-x*(1+gm)) * share * (1 - gm), math.Exp(-x*(1-gm)) * share * (1 + gm)
}

// newLanczosWeights returns ω of lanczosWork.step's rounding bound for the
// matrix with g's off-diagonal and diagonal deg. terms is nil for a graph's
// own Laplacian (row r: a dot product of m_r + 1 terms with a degree summed
// from m_r weights, γ_r = γ_{2m_r+4}, and Σ_c w_rc = d_r). On the quotient
// the diagonal was summed from terms[r] weights and every off-diagonal
// w√(tt') carries two more roundings, so γ_r = γ_{m_r+terms[r]+6}, and the
// Cauchy–Schwarz step uses s_r = Σ_c w_rc (rounded up) in place of d_r.
func newLanczosWeights(g *laplacian.Graph, deg []float64, terms []int32) []float64 {
	n := g.N()
	gam := make([]float64, n)
	sum := make([]float64, n)
	for r := 0; r < n; r++ {
		cols, _ := g.Neighbors(r)
		if terms == nil {
			gam[r], sum[r] = highamGamma(2*len(cols)+4), deg[r]
		} else {
			gam[r], sum[r] = highamGamma(len(cols)+int(terms[r])+6), g.Degree(r)*(1+highamGamma(len(cols)))
		}
	}
	om := make([]float64, n)
	for r := 0; r < n; r++ {
		d := deg[r]
		om[r] += 2 * gam[r] * gam[r] * d * d
		cols, ws := g.Neighbors(r)
		for t, c := range cols {
			w := 1.0
			if ws != nil {
				w = ws[t]
			}
			om[c] += 2 * gam[r] * gam[r] * sum[r] * w
		}
	}
	for r := range om {
		om[r] *= 1 + highamGamma(2*len(om)+8)
	}
	return om
}

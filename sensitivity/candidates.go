package sensitivity

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// candidateBlocks is the number of column blocks (columnBlock edges each)
// the candidate pass proves.
const candidateBlocks = 2

// candidateLower proves a lower bound on max_e √q_e from the edges most
// likely to attain it (docs/derivations.md §2.11):
//
//  1. a sketch Y ≈ exp(−τL)Z of columnBlock random sign vectors ranks every
//     edge by (1/columnBlock)·Σ_c (Y_ic − Y_jc)², an unbiased estimate of
//     q_e (E[(zᵀx)²] = ‖x‖² for independent signs);
//  2. for the candidateBlocks·columnBlock edges ranked first, the
//     Chebyshev vectors ŷ_e ≈ p_K(L)b_e of exp(−τL)b_e are computed, and
//     √q_e ≥ ‖ŷ_e‖ − √2(E_K(τB/2) + ε_col), ε_col the rounding bound of a
//     unit column (chebColumnErr; ‖b_e‖ = √2 and the recurrence is linear).
//
// The bound is on √q_e itself, so it stays relative where q_e is tiny
// (large τ), unlike a quadratic form of the column scheme, whose error is
// absolute in q_e. t0 and t1 are n·columnBlock scratch blocks, zero on
// entry and left zero. When cut passes it returns the best of the blocks
// completed: 0 and (−1, −1) when none was.
func candidateLower(g *laplacian.Graph, tau float64, t0, t1 []float64, cut cutoff) (float64, [2]int) {
	best, edge := 0.0, [2]int{-1, -1}
	B := expm.LambdaMaxBound(g)
	a := tau * B / 2
	kern := newBlockKernel(g)
	y := make([]float64, len(t0))
	// The sketch needs the proven columns' accuracy: where Δ2 is tiny (large
	// τ) a coarser truncation error swamps every difference Y_i − Y_j.
	K := chebDegree(a, candidateTol)
	coef := chebCoefficients(a, K)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range t0 {
		t0[k] = float64(2*int(rng.Uint64()&1) - 1)
	}
	if !chebAction(kern, coef, B, y, t0, t1, cut) {
		return best, edge
	}
	type scored struct {
		i, j int32
		q    float64
	}
	want := candidateBlocks * columnBlock
	top := make([]scored, 0, want+1)
	g.ForEachEdge(func(i, j int, _ float64) {
		q := 0.0
		for c := range columnBlock {
			d := y[i*columnBlock+c] - y[j*columnBlock+c]
			q += d * d
		}
		if len(top) == want && q <= top[want-1].q {
			return
		}
		k := sort.Search(len(top), func(k int) bool { return top[k].q < q })
		top = append(top[:k], append([]scored{{int32(i), int32(j), q}}, top[k:]...)...)
		top = top[:min(len(top), want)]
	})
	wmax := 0
	for v := range g.N() {
		cols, _ := g.Neighbors(v)
		wmax = max(wmax, len(cols))
	}
	slack := math.Sqrt2 * (expm.ChebyshevTail(a, K) + chebColumnErr(g, B, a, K, wmax)) * (1 + 4*roundoffU)
	shrink := 1 - highamGamma(g.N()+2)
	for lo := 0; lo < len(top); lo += columnBlock {
		blk := top[lo:min(lo+columnBlock, len(top))]
		for c, e := range blk {
			t0[int(e.i)*columnBlock+c], t0[int(e.j)*columnBlock+c] = 1, -1
		}
		if !chebAction(kern, coef, B, y, t0, t1, cut) {
			return best, edge
		}
		var sq [columnBlock]float64
		for v := range g.N() {
			row := y[v*columnBlock : (v+1)*columnBlock]
			for c := range blk {
				sq[c] += row[c] * row[c]
			}
		}
		for c, e := range blk {
			// fl(Σ y²) ≤ (1 + γ_{n+2})‖ŷ‖², √ rounds by one ulp, and the
			// last factor covers the rounding of the products and the
			// difference.
			if r := (math.Sqrt(sq[c])*shrink*(1-2*roundoffU) - slack) * (1 - 8*roundoffU); r > best {
				best, edge = r, [2]int{int(e.i), int(e.j)}
			}
		}
	}
	return best, edge
}

// candidateSteps is the number of whole-graph kernel steps of
// candidateLower on g at τ: the sketch and candidateBlocks proven blocks.
func candidateSteps(g *laplacian.Graph, tau float64) float64 {
	a := tau * expm.LambdaMaxBound(g) / 2
	return float64((1 + candidateBlocks) * (chebDegree(a, candidateTol) + 1))
}

// candidateStepFactor is the cost of a candidate step (kernel and
// accumulation) in kernel steps; see docs/derivations.md §2.11.
const candidateStepFactor = 1.3

// candidateTol is the truncation tolerance of the candidate pass's proven
// columns: below the rounding bound ε_col at the degrees it needs.
const candidateTol = 1e-13

// chebAction sets y = Σ_k coef[k]·T_k(L̃)X for the block X in t0 (L̃ =
// (2/B)L − I; the recurrence of chebColumns on the whole graph) and leaves
// t0 and t1 zero. It reports false, with y undefined, when cut passes.
func chebAction(kern *blockKernel, coef []float64, B float64, y, t0, t1 []float64, cut cutoff) bool {
	defer func() { clear(t0); clear(t1) }()
	for k, v := range t0 {
		y[k] = coef[0] * v
	}
	K := len(coef) - 1
	if K >= 1 {
		kern.step(t1, t0, nil, 2/B, -1, 0)
		axpyInto(y, coef[1], t1)
	}
	for k := 2; k <= K; k++ {
		if k%8 == 0 && cut.passed() {
			return false
		}
		kern.step(t0, t1, t0, 4/B, -2, -1)
		t0, t1 = t1, t0
		axpyInto(y, coef[k], t1)
	}
	return true
}

// axpyInto adds c·x to y.
func axpyInto(y []float64, c float64, x []float64) {
	for k, v := range x {
		y[k] += c * v
	}
}

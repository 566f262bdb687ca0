package sensitivity

import (
	"math"
	"math/bits"
	"slices"

	"github.com/graphcloak/graphcloak/laplacian"
)

// resistanceWork finds, for an edge (a, b), a proven upper bound on its
// effective resistance R_ab = b_eᵀ L⁺ b_e from a series-parallel subnetwork
// around it (docs/derivations.md §2.1):
//
//	H = the edge a–b, and for every other neighbour k of a the branch
//	    a–k followed by the parallel connections k–b (when k ~ b) and
//	    k–l–b over common neighbours l of k and b,
//
// where every l serves one branch only and is neither a, b nor a neighbour
// of a. The branches then share only a and b, so H's resistance is
//
//	R_H = 1 / (w_ab + Σ_k 1/(1/w_ak + 1/c_kb)),  c_kb = w_kb + Σ_l w_kl w_lb/(w_kl + w_lb)
//	    (or c_kb = 1/(1/w_kx + 1/w_xl + 1/w_lb) for a path k–x–l–b),
//
// and R_ab ≤ R_H by Rayleigh's monotonicity law (deleting edges of G never
// lowers a resistance). The walk starts at the endpoint of fewer
// neighbours (heat leaving an edge goes through it) and spends at most
// resistanceBudget(a, b) neighbour entries or binary-search probes on the
// common neighbours of k and b. A branch that found neither (an edge on no
// triangle or 4-cycle, common in sparse expanders) may instead take one
// path k–x–l–b of three edges (longPath), its nodes then serving it only;
// branches past the budget keep only what they found.
type resistanceWork struct {
	g     *laplacian.Graph
	stamp int32
	taken []int32 // taken[v] == stamp: v is a, b, a neighbour of a, or serves a branch
	nearB []int32 // nearB[v] == stamp: v is a neighbour of b, at posB[v] in b's list
	posB  []int32
}

func newResistanceWork(g *laplacian.Graph) *resistanceWork {
	n := g.N()
	return &resistanceWork{g: g, taken: make([]int32, n), nearB: make([]int32, n), posB: make([]int32, n)}
}

// resistanceBudget caps the neighbour entries scanned for one edge: a few
// times the two endpoints' lists, enough for the hubs next to a leaf.
func resistanceBudget(da, db int) int { return 16*(da+db) + 1024 }

// bound returns R⁺ ≥ R_ab for the edge (a, b) of weight w (see
// resistanceWork); R⁺ ≤ 1/w always.
func (r *resistanceWork) bound(a, b int, w float64) float64 {
	g := r.g
	ca, wa := g.Neighbors(a)
	cb, wb := g.Neighbors(b)
	if len(ca) > len(cb) {
		a, b, ca, wa, cb, wb = b, a, cb, wb, ca, wa
	}
	r.stamp++
	if r.stamp == math.MaxInt32 {
		clear(r.taken)
		clear(r.nearB)
		r.stamp = 1
	}
	s := r.stamp
	r.taken[a], r.taken[b] = s, s
	for _, k := range ca {
		r.taken[k] = s
	}
	for p, l := range cb {
		r.nearB[l], r.posB[l] = s, int32(p)
	}
	budget := resistanceBudget(len(ca), len(cb))
	c := w
	for p, k := range ca {
		if int(k) == b {
			continue
		}
		ckb := 0.0
		if r.nearB[k] == s {
			ckb = weightAt(wb, int(r.posB[k]))
		}
		ck, wk := g.Neighbors(int(k))
		// Common neighbours of k and b: scan k's list against the marks,
		// or (k a hub) look b's neighbours up in k's sorted list.
		search := len(cb) * bits.Len(uint(len(ck)))
		switch {
		case len(ck) <= min(budget, search):
			budget -= len(ck)
			ckb = r.scanCommon(ck, wk, wb, s, ckb)
		case search <= budget:
			budget -= search
			ckb = r.searchCommon(ck, wk, cb, wb, s, ckb)
		}
		if ckb == 0 && budget > 0 {
			ckb, budget = r.longPath(int(k), ck, wk, cb, wb, budget)
		}
		if ckb > 0 {
			c += 1 / (1/weightAt(wa, p) + 1/ckb)
		}
	}
	// c is a sum of positive terms, each within a few ulps: a relative
	// margin of roundUp covers the rounding for any realistic degree.
	return math.Min(1/w, 1/c*roundUp)
}

// scanCommon adds to ckb, for each neighbour l of k (list ck, weights wk)
// marked next to b and not taken, the series conductance of k–l–b, taking
// l.
func (r *resistanceWork) scanCommon(ck []int32, wk, wb []float64, s int32, ckb float64) float64 {
	for q, l := range ck {
		if r.nearB[l] != s || r.taken[l] == s {
			continue
		}
		r.taken[l] = s
		wkl, wlb := weightAt(wk, q), weightAt(wb, int(r.posB[l]))
		ckb += wkl * wlb / (wkl + wlb)
	}
	return ckb
}

// searchCommon is scanCommon for a hub k: it looks each neighbour l of b
// (list cb, weights wb) not taken up in k's sorted list.
func (r *resistanceWork) searchCommon(ck []int32, wk []float64, cb []int32, wb []float64, s int32, ckb float64) float64 {
	for q, l := range cb {
		if r.taken[l] == s {
			continue
		}
		if p, ok := slices.BinarySearch(ck, l); ok {
			r.taken[l] = s
			wkl, wlb := weightAt(wk, p), weightAt(wb, q)
			ckb += wkl * wlb / (wkl + wlb)
		}
	}
	return ckb
}

// longPath looks for a path k–x–l–b with x and l not yet taken (so not a,
// b, a neighbour of a or a node of another branch), l a neighbour of b,
// scanning at most budget neighbour entries or binary-search probes. It
// returns the path's conductance 1/(1/w_kx + 1/w_xl + 1/w_lb) with x and l
// marked taken, or 0, and the budget left.
func (r *resistanceWork) longPath(k int, ck []int32, wk []float64, cb []int32, wb []float64, budget int) (float64, int) {
	s := r.stamp
	for q, x := range ck {
		if budget--; budget < 0 {
			return 0, 0
		}
		if r.taken[x] == s {
			continue
		}
		cx, wx := r.g.Neighbors(int(x))
		if len(cx) > budget {
			continue
		}
		budget -= len(cx)
		for t, l := range cx {
			if r.nearB[l] != s || r.taken[l] == s {
				continue
			}
			r.taken[x], r.taken[l] = s, s
			return 1 / (1/weightAt(wk, q) + 1/weightAt(wx, t) + 1/weightAt(wb, int(r.posB[l]))), budget
		}
	}
	return 0, budget
}

// weightAt is the weight of a neighbour entry (1 on an unweighted graph).
func weightAt(ws []float64, p int) float64 {
	if ws == nil {
		return 1
	}
	return ws[p]
}

// resistanceEdgeBound is the bound q_e ≤ ψ(R) for an edge of effective
// resistance at most R (docs/derivations.md §2.1): with t = 4τ/R,
//
//	ψ = R/(2eτ) for t ≥ 1,   ψ = 2e^{−t} for t < 1,
//
// the first inverse moment case of inverseMomentBound (R_e = b_eᵀL⁺b_e).
func resistanceEdgeBound(R, tau float64) float64 { return inverseMomentBound(R, 1, tau) }

// bridgeEdgeBound is a proven upper bound on q_e for a bridge of weight w
// whose sides have s and r nodes: the potential φ = L⁺b_e of a unit current
// across a bridge is constant on each side, with jump 1/w and mean zero,
// so ‖L⁺b_e‖² = s·r/((s + r)w²) exactly, and inverseMomentBound with p = 2
// applies. A leaf edge (s = 1) at τ = 10 gets about 1/(eτw)² = 0.0014
// where the resistance bound gives 1/(2eτw) = 0.018.
func bridgeEdgeBound(s, r int, w, tau float64) float64 {
	m2 := float64(s) * float64(r) / (float64(s+r) * w * w)
	return inverseMomentBound(m2*(1+8*roundoffU), 2, tau)
}

// inverseMomentBound is the largest q_e = Σ_k c_k² e^{−2τλ_k} can be when
// Σ c_k² = 2 and Σ c_k² λ_k^{−p} ≤ M (p > 0). Proof: b_e is orthogonal to
// the null space of L (both ends lie in one component), so with the
// eigenpairs (λ_k, v_k) of L and c_k = v_kᵀb_e, q_e = Σ_{λ_k>0} c_k² e^{−2τλ_k},
// Σ c_k² = ‖b_e‖² = 2 and Σ c_k² λ_k^{−p} = b_eᵀ(L⁺)ᵖb_e. In x = λ^{−p},
// e^{−2τλ} = F(x) = exp(−2τx^{−1/p}) is increasing, convex for
// x < (2τ/(p+1))ᵖ and concave beyond; its least concave majorant F̂ is the tangent from the
// origin, of slope max_λ λᵖe^{−2τλ} = (p/(2eτ))ᵖ touching at x* = (2τ/p)ᵖ,
// then F itself. By Jensen, q_e = 2·mean F(x) ≤ 2F̂(M/2) (F̂ increases):
//
//	q_e ≤ M·(p/(2eτ))ᵖ              if M/2 ≤ x*,
//	q_e ≤ 2·exp(−2τ(M/2)^{−1/p})     otherwise.
//
// It increases with M, so any upper bound on the moment is valid. p = 1
// is the effective resistance R_e, p = 2 is ‖L⁺b_e‖².
func inverseMomentBound(M, p, tau float64) float64 {
	if xs := math.Pow(2*tau/p, p); M/2 <= xs {
		return M * math.Pow(p/(2*math.E*tau), p)
	}
	return 2 * math.Exp(-2*tau*math.Pow(M/2, -1/p))
}

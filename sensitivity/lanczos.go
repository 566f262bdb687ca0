package sensitivity

import (
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// lanczosWork brackets q_e = ‖exp(−τL)b‖², b = e_i − e_j, by a Lanczos
// approximation with a rigorous a-posteriori error bound
// (docs/derivations.md §2.4). Its cost adapts to the edge: a few steps
// settle an edge far below the running maximum, and Lanczos resolves the
// isolated large eigenvalues of hubs in a few steps where a Chebyshev
// expansion pays √(τλmax) for them.
//
// Proof. Floating-point Lanczos started from v₁ = fl(b/√2) returns vectors
// V = [v₁ … v_k], v_{k+1} and a tridiagonal T (α_j, β_j); no orthogonality
// is assumed. By definition of the residuals f_j (bounded in step)
//
//	LV − VT = β_k v_{k+1} e_kᵀ + F,  F = [f₁ … f_k].
//
// For computed eigenpairs (Q̂, Θ̂) of T put ẑ(s) = √2·Q̂e^{−sΘ̂}Q̂ᵀe₁ and
// ŷ(s) = Vẑ(s). Then ẑ' + Tẑ = (TQ̂ − Q̂Θ̂)e^{−sΘ̂}Q̂ᵀe₁√2 =: E(s), so
//
//	ŷ' + Lŷ = VE(s) + β_k v_{k+1} ẑ_k(s) + Fẑ(s) =: ρ(s),
//
// while u(s) = e^{−sL}b solves u' + Lu = 0. Duhamel's formula gives
// u(τ) − ŷ(τ) = e^{−τL}(b − ŷ(0)) − ∫₀^τ e^{−(τ−s)L}ρ(s) ds, and
// ‖e^{−tL}‖ ≤ 1 (L ⪰ 0), so
//
//	|‖u(τ)‖ − ‖ŷ(τ)‖| ≤ ‖b − ŷ(0)‖ + ∫₀^τ ‖ρ(s)‖ ds
//	  ≤ ‖b − √2v₁‖ + √2‖V‖_F‖(I − Q̂Q̂ᵀ)e₁‖
//	    + √2·(‖V‖_F‖TQ̂ − Q̂Θ̂‖_F + ‖F‖_F‖Q̂‖)·∫₀^τ φ(s) ds
//	    + β_k‖v_{k+1}‖·∫₀^τ |ẑ_k(s)| ds,
//
// φ(s) = ‖e^{−sΘ̂}Q̂ᵀe₁‖ (so ‖E(s)‖ ≤ ‖TQ̂ − Q̂Θ̂‖_F√2φ(s) and
// ‖ẑ(s)‖ ≤ ‖Q̂‖√2φ(s)); ∫φ is bounded by headIntegral or by τ·g·‖Q̂‖,
// g = e^{τ·max(0, −θ_min)} (‖e^{−sΘ̂}‖ ≤ g), ‖Q̂‖² ≤ 1 + ‖Q̂ᵀQ̂ − I‖_F.
// ẑ_k(s) = √2 Σ_m Q̂_km Q̂_1m e^{−sθ_m} is a sum of exponentials whose terms
// cancel almost exactly once Lanczos has converged, so its integral is
// bounded by Taylor expansions with certified remainders (absExpSumIntegral),
// never term by term. Every floating-point evaluation in the bound carries
// its rounding bound (Higham's γ_n).
//
// Second order. With δ = u(τ) − ŷ(τ), q_e = ‖ŷ(τ)‖² + 2ŷ(τ)ᵀδ + ‖δ‖², and
// the cross term is small to second order. Split ρ = ρ₁ + ρ₂ with
// ρ₁(s) = β_k v_{k+1} ẑ_k(s); then
//
//	ŷ(τ)ᵀδ = ŷ(τ)ᵀe^{−τL}δ₀ − ∫₀^τ ŷ(τ)ᵀe^{−(τ−s)L}ρ₂(s) ds − β_k∫₀^τ ẑ_k(s) g(τ−s) ds,
//
// g(r) = v_{k+1}ᵀe^{−rL}ŷ(τ). ŷ obeys ŷ' + Lŷ = ρ past τ too, so
// e^{−rL}ŷ(τ) = ŷ(τ+r) − ∫₀^r e^{−(r−p)L}ρ(τ+p) dp and, for r ≤ τ,
//
//	|g(r)| ≤ sup_{t∈[τ,2τ]} |oᵀẑ(t)| + ‖v_{k+1}‖(β_k‖v_{k+1}‖∫_τ^{2τ}|ẑ_k| + ∫_τ^{2τ}‖ρ₂‖) =: G,
//
// o = Vᵀv_{k+1} (zero in exact arithmetic; computed, so loss of
// orthogonality costs tightness, not validity; oᵀẑ(t) is bounded term by
// term in the Ritz basis). Hence |ŷ(τ)ᵀδ| ≤ ‖ŷ(τ)‖(‖δ₀‖ + ∫₀^τ‖ρ₂‖) + β_kJ₁G
// =: X, J₁ = ∫₀^τ|ẑ_k|, and with ε the first-order bound on ‖δ‖
//
//	‖ŷ(τ)‖² − 2X ≤ q_e ≤ ‖ŷ(τ)‖² + 2X + ε².
//
// The first-order bracket has width ≈ 4‖ŷ‖β_kJ₁ on q_e, this one
// ≈ 2β_k²J₁(J₁ + 2J₂): it reaches a given width in 13–27 % fewer steps on
// hub and random graphs at τ ≤ 2 (TestLanczosSecondOrder); at τ = 10 the
// runs prune their edges while β_kJ₁ still exceeds ‖ŷ‖, where the first
// order is the narrower. certify takes the intersection of the two.
type lanczosWork struct {
	op      *lanczosOp
	tau     float64
	n, kmax int
	V       [][]float64  // v₁ … v_{kmax+1}, each of length n (see vec)
	pool    *[][]float64 // spare vectors shared by the slots of a block, or nil
	alpha   []float64
	beta    []float64
	fnorm   []float64 // bounds on ‖f_j‖
	vnorm   []float64 // ‖v_j‖, rounded up
	w       []float64
	window  bool // keep only three Krylov vectors (estimate only; certify needs them all)

	// The start: ŷ = nb·Vẑ with ‖b − nb·v₁‖ ≤ startErr, and the twin
	// differences' share of q_e in [twinLo, twinUp] (lanczosOp.start).
	nb, startErr   float64
	twinLo, twinUp float64
}

func newLanczosWork(op *lanczosOp, tau float64, kmax int) *lanczosWork {
	n := op.g.N()
	return &lanczosWork{op: op, tau: tau, n: n, kmax: kmax,
		V:     make([][]float64, kmax+1),
		alpha: make([]float64, kmax), beta: make([]float64, kmax),
		fnorm: make([]float64, kmax), vnorm: make([]float64, kmax+1),
		w: make([]float64, n)}
}

// vec returns v_{j+1}'s storage, allocated on first use: most edges settle
// in a few steps, so memory follows the deepest recurrence run so far, not
// kmax. Every entry is written before it is read.
func (lw *lanczosWork) vec(j int) []float64 {
	if lw.window {
		j %= 3
	}
	if lw.V[j] == nil {
		if p := lw.pool; p != nil && len(*p) > 0 {
			lw.V[j] = (*p)[len(*p)-1]
			*p = (*p)[:len(*p)-1]
		} else {
			lw.V[j] = make([]float64, lw.n)
		}
	}
	return lw.V[j]
}

// release returns the Krylov vectors to the pool shared with other slots
// (lanczosBlock), so that memory follows the recurrences running now.
func (lw *lanczosWork) release() {
	if lw.pool == nil {
		return
	}
	for j, v := range lw.V {
		if v != nil {
			*lw.pool = append(*lw.pool, v)
			lw.V[j] = nil
		}
	}
}

// start sets v₁ = fl(b/√2) for b = e_i − e_j.
func (lw *lanczosWork) start(i, j int) {
	v := lw.vec(0)
	clear(v)
	v[i], v[j] = 1/math.Sqrt2, -1/math.Sqrt2
	lw.vnorm[0] = 1 + 4*roundoffU
	lw.nb, lw.startErr, lw.twinLo, lw.twinUp = math.Sqrt2, 4*roundoffU, 0, 0
}

// quotientRoot is the norm on the quotient that corresponds to the norm r
// of q_e^{1/2} (inverse of withTwins, up to rounding): it only sets how
// tight certify and estimate aim.
func (lw *lanczosWork) quotientRoot(r float64) float64 {
	if lw.twinUp == 0 {
		return r
	}
	return math.Sqrt(math.Max(0, r*r-lw.twinUp))
}

// withTwins turns a bracket of ‖e^{−τL_q}b_q‖ into one of q_e^{1/2} by
// adding the twin differences' share (lanczosOp); the identity without it.
func (lw *lanczosWork) withTwins(lo, up float64) (float64, float64) {
	if lw.twinUp == 0 {
		return lo, up
	}
	return math.Sqrt(lo*lo+lw.twinLo) * (1 - 4*roundoffU), math.Sqrt(up*up+lw.twinUp) * (1 + 4*roundoffU)
}

// step runs Lanczos step k (0-based): from v_{k+1} (and v_k) it computes
// α, β and v_{k+2}, and bounds the residual
//
//	f = L v − α v − β_prev v_prev − β v_next
//
// by the rounding of the matrix–vector product, of the two axpys and of the
// division by β. Row r of Lv, with m_r stored neighbours, is a dot product
// of m_r + 1 terms with a degree summed from m_r weights, so its error is at
// most γ_r(d_r|v_r| + Σ_c w_rc|v_c|), γ_r = γ_{2m_r+4}. By (a+b)² ≤ 2a²+2b²
// and Cauchy–Schwarz, (Σ_c w_rc|v_c|)² ≤ d_r Σ_c w_rc v_c², so the error has
// norm² at most Σ_r ω_r v_r² with ω_r = 2γ_r²d_r² + 2Σ_{c∼r} γ_c² d_c w_rc
// (newLanczosWeights). The axpys add at most γ₄(‖Lv‖ + |α|‖v‖ + β_prev‖v_prev‖)
// and the division u‖w‖. step reports false on breakdown (β = 0: the
// Krylov space is invariant).
func (lw *lanczosWork) step(k int) bool {
	n := lw.n
	v := lw.vec(k)
	w := lw.w
	g := lw.op.g
	deg, om := lw.op.deg, lw.op.omega
	a, errSq, wn := 0.0, 0.0, 0.0
	for r := 0; r < n; r++ {
		cols, ws := g.Neighbors(r)
		vr := v[r]
		acc := deg[r] * vr
		if ws == nil {
			for _, c := range cols {
				acc -= v[c]
			}
		} else {
			for t, c := range cols {
				acc -= ws[t] * v[c]
			}
		}
		w[r] = acc
		a += vr * acc
		wn += acc * acc
		errSq += om[r] * vr * vr
	}
	bPrev, vpn := 0.0, 0.0
	var vp []float64
	if k > 0 {
		bPrev = lw.beta[k-1]
		vp = lw.vec(k - 1)
		vpn = lw.vnorm[k-1]
	}
	bb := 0.0
	if vp != nil {
		for r := 0; r < n; r++ {
			x := w[r] - a*v[r] - bPrev*vp[r]
			w[r] = x
			bb += x * x
		}
	} else {
		for r := 0; r < n; r++ {
			x := w[r] - a*v[r]
			w[r] = x
			bb += x * x
		}
	}
	copy(lw.vec(k+1), w)
	return lw.finishStep(k, a, errSq, wn, bb, bPrev, vpn)
}

// finishStep completes step k once v_{k+2} holds w = Lv − αv − β_prev v_prev:
// it normalises v_{k+2} and records the step (record). It reports false on
// breakdown.
func (lw *lanczosWork) finishStep(k int, a, errSq, wn, bb, bPrev, vpn float64) bool {
	next := lw.vec(k + 1)
	inv := 0.0
	if bt := math.Sqrt(bb); bt > breakdownBeta && !math.IsInf(bt, 0) {
		inv = 1 / bt
	}
	vn := 0.0
	for r := range next {
		next[r] *= inv
		vn += next[r] * next[r]
	}
	return lw.record(k, a, errSq, wn, bb, bPrev, vpn, vn)
}

// record stores step k's α and β = √bb and its residual bound (see step)
// from α, Σω_r v_r², ‖Lv‖², ‖w‖², β_prev, ‖v_prev‖ and the squared norm vn
// of the normalised v_{k+2}. On breakdown (β ≤ breakdownBeta, v_{k+2} = 0) β is
// recorded as 0 and w goes into the residual; it then reports false.
func (lw *lanczosWork) record(k int, a, errSq, wn, bb, bPrev, vpn, vn float64) bool {
	b := math.Sqrt(bb)
	lw.alpha[k] = a
	grow := 1 + highamGamma(lw.n+2)
	f := math.Sqrt(errSq)*grow + highamGamma(4)*(math.Sqrt(wn)*grow+math.Abs(a)*lw.vnorm[k]+bPrev*vpn) + roundoffU*b*grow
	f *= lanczosRoundUp
	if !(b > breakdownBeta) || math.IsInf(b, 0) {
		lw.beta[k] = 0
		lw.fnorm[k] = f + b*grow
		lw.vnorm[k+1] = 0
		return false
	}
	lw.beta[k] = b
	lw.fnorm[k] = f
	lw.vnorm[k+1] = math.Sqrt(vn) * grow
	return true
}

// estimate returns an unproven bracket of ‖exp(−τL)b‖ after k steps from
// T alone, certify's second-order bracket without its rounding terms
// (exact when V is orthonormal), and
// ‖ẑ(τ)‖ itself (gauss; 0 when it failed). It only decides whether certify
// is worth running, or gives the pilot its guess; nothing is concluded
// from it.
func (lw *lanczosWork) estimate(k int, floorRoot float64) (lo, up, zn float64) {
	floorRoot = lw.quotientRoot(floorRoot)
	zn, c, theta, ok := lw.gauss(k)
	if !ok {
		return 0, math.Inf(1), 0
	}
	bk := lw.beta[k-1] * lw.vnorm[k]
	qLo, qUp := zn*zn, zn*zn
	if bk > 0 {
		// certify's bracket with its rounding terms left out.
		want := math.Max(math.Max(lanczosRelTol*math.Max(zn, floorRoot), 0.25*(floorRoot-zn)), targetFloor)
		eps := 0.1 * want / bk // a screen: 10 % is plenty
		e1 := bk * absExpSumIntegral(c, theta, lw.tau, eps)
		qLo, qUp = math.Pow(math.Max(0, zn-e1), 2), (zn+e1)*(zn+e1)
		if e1 < zn {
			e2 := bk * absExpSumIntegral(laterCoefs(c, theta, lw.tau), theta, lw.tau, eps)
			X := e1 * e2 * lw.vnorm[k]
			qLo, qUp = math.Max(qLo, zn*zn-2*X), math.Min(qUp, zn*zn+2*X+e1*e1)
		}
	}
	lo, up = lw.withTwins(math.Sqrt(math.Max(0, qLo)), math.Sqrt(qUp))
	_, zn = lw.withTwins(0, zn)
	return lo, up, zn
}

// gauss returns ‖ẑ(τ)‖ = (2e₁ᵀe^{−2τT}e₁)^{1/2} from the first k steps —
// the k-point Gauss rule for q_e = ∫e^{−2τx}dμ_e, below q_e in exact
// arithmetic since every even derivative of e^{−2τx} is positive (not a
// proof in floating point) — with the coefficients c_m = √2 Q̂_km Q̂_1m and
// the Ritz values θ_m that estimate's integral needs.
func (lw *lanczosWork) gauss(k int) (zn float64, c, theta []float64, ok bool) {
	theta, first, last := make([]float64, k), make([]float64, k), make([]float64, k)
	e := make([]float64, k)
	copy(theta, lw.alpha[:k])
	copy(e, lw.beta[:k-1])
	first[0], last[k-1] = 1, 1
	if !tridiagEigEnds(theta, e, first, last) {
		return 0, nil, nil, false
	}
	c = make([]float64, k)
	for m := 0; m < k; m++ {
		x := math.Exp(-lw.tau*theta[m]) * first[m]
		zn += x * x
		c[m] = lw.nb * last[m] * first[m]
	}
	return lw.nb * math.Sqrt(zn), c, theta, true
}

// tridiagEigEnds overwrites d with the eigenvalues of the symmetric
// tridiagonal matrix with diagonal d and off-diagonal e (e[i] couples i and
// i+1; e is destroyed), and applies the same rotations to the rows first
// and last of the eigenvector matrix (pass rows of the identity): the
// implicit QL iteration with Wilkinson shifts (Bowdler, Martin, Reinsch &
// Wilkinson, tql2, 1968), tracking two rows instead of k, so O(k²) instead
// of O(k³). Only gauss uses it (nothing proven rests on it); it reports
// false when an eigenvalue has not converged after 30 sweeps.
func tridiagEigEnds(d, e, first, last []float64) bool {
	n := len(d)
	e[n-1] = 0
	for l := 0; l < n; l++ {
		for iter := 0; ; iter++ {
			m := negligibleSubdiag(d, e, l)
			if m == l {
				break
			}
			if iter == 30 {
				return false
			}
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := math.Hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			i := m - 1
			for ; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				r = math.Hypot(f, g)
				e[i+1] = r
				if r == 0 {
					d[i+1] -= p
					e[m] = 0
					break
				}
				s, c = f/r, g/r
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				rotate(first, i, s, c)
				rotate(last, i, s, c)
			}
			if r == 0 && i >= l {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	return true
}

// negligibleSubdiag returns the first m ≥ l whose e[m] is negligible
// beside d[m] and d[m+1] (n−1 if none), where tridiagEigEnds splits.
func negligibleSubdiag(d, e []float64, l int) int {
	m := l
	for ; m < len(d)-1; m++ {
		if math.Abs(e[m]) <= roundoffU*(math.Abs(d[m])+math.Abs(d[m+1])) {
			break
		}
	}
	return m
}

// rotate applies the Givens rotation (c, s) to z[i], z[i+1].
func rotate(z []float64, i int, s, c float64) {
	f := z[i+1]
	z[i+1] = s*z[i] + c*f
	z[i] = c*z[i] - s*f
}

// ritz returns the eigenvalues and eigenvectors of the k×k tridiagonal T,
// by LAPACK's implicit QL/QR on T itself (no reduction to tridiagonal
// form, which T already has).
func (lw *lanczosWork) ritz(k int) ([]float64, *mat.Dense, bool) {
	d := append([]float64(nil), lw.alpha[:k]...)
	e := make([]float64, max(1, k-1))
	copy(e, lw.beta[:k-1])
	z := make([]float64, k*k)
	work := make([]float64, max(1, 2*k-2))
	if !(gonumlapack.Implementation{}).Dsteqr(lapack.EVTridiag, k, d, e, z, k, work) {
		return nil, nil, false
	}
	return d, mat.NewDense(k, k, z), true
}

// certify returns lo ≤ ‖exp(−τL)b‖ ≤ up from the first k Lanczos steps:
// the intersection of the two brackets proved on lanczosWork. floorRoot
// is the best lower bound on the maximum (√ of the floor of edgeBracket):
// it only steers the effort spent on the integrals, never validity.
func (lw *lanczosWork) certify(k int, floorRoot float64) (lo, up float64) {
	first, second := lw.brackets(k, lw.quotientRoot(floorRoot))
	return lw.withTwins(math.Max(first[0], second[0]), math.Min(first[1], second[1]))
}

// brackets returns certify's first- and second-order brackets of
// ‖exp(−τL_q)b_q‖ on the quotient ([0, +Inf] when one could not be formed;
// the second is not formed where it cannot be the narrower).
func (lw *lanczosWork) brackets(k int, floorRoot float64) (first, second [2]float64) {
	first, second = [2]float64{0, math.Inf(1)}, [2]float64{0, math.Inf(1)}
	theta, Q, ok := lw.ritz(k)
	if !ok {
		return first, second
	}
	tau := lw.tau
	thNeg := 0.0
	for _, th := range theta {
		thNeg = math.Max(thNeg, -th)
	}
	growth := math.Exp(tau * thNeg)

	// ‖TQ̂ − Q̂Θ̂‖_F and ‖Q̂ᵀQ̂ − I‖_F, each with its rounding bound.
	eq, qf2 := 0.0, 0.0
	for m := 0; m < k; m++ {
		for r := 0; r < k; r++ {
			x := lw.alpha[r]*Q.At(r, m) - theta[m]*Q.At(r, m)
			ab := math.Abs(lw.alpha[r]*Q.At(r, m)) + math.Abs(theta[m]*Q.At(r, m))
			if r > 0 {
				x += lw.beta[r-1] * Q.At(r-1, m)
				ab += math.Abs(lw.beta[r-1] * Q.At(r-1, m))
			}
			if r+1 < k {
				x += lw.beta[r] * Q.At(r+1, m)
				ab += math.Abs(lw.beta[r] * Q.At(r+1, m))
			}
			x = math.Abs(x) + highamGamma(5)*ab
			eq += x * x
			qf2 += Q.At(r, m) * Q.At(r, m)
		}
	}
	eq = math.Sqrt(eq) * (1 + highamGamma(k*k+2))
	var QtQ mat.Dense
	QtQ.Mul(Q.T(), Q)
	orth := 0.0
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			x := QtQ.At(a, b)
			if a == b {
				x--
			}
			x = math.Abs(x) + highamGamma(k+2)*1.01
			orth += x * x
		}
	}
	qn2 := (1 + math.Sqrt(orth)) * (1 + highamGamma(k*k+2)) // ≥ ‖Q̂‖²
	qn := math.Sqrt(qn2) * (1 + roundoffU)
	qf2 *= 1 + highamGamma(k*k+2)

	// ẑ(τ), the coefficients c_m of ẑ_k(s), and (I − Q̂Q̂ᵀ)e₁.
	nb := lw.nb * (1 + roundoffU)
	c := make([]float64, k)
	z := make([]float64, k)
	d := make([]float64, k)
	d[0] = 1
	for m := 0; m < k; m++ {
		q1 := Q.At(0, m)
		c[m] = lw.nb * Q.At(k-1, m) * q1
		ex := math.Exp(-tau*theta[m]) * q1 * lw.nb
		for r := 0; r < k; r++ {
			z[r] += Q.At(r, m) * ex
			d[r] -= Q.At(r, m) * q1
		}
	}
	zErr := highamGamma(k+4) * nb * qf2 * growth // ‖fl(ẑ(τ)) − ẑ(τ)‖
	dn := vecNorm(d) + highamGamma(k+3)*qf2

	// J₁ = ∫₀^τ|ẑ_k|, to the accuracy the floor asks for (‖ẑ(τ)‖ stands
	// for ‖ŷ(τ)‖ here: it only steers the effort); and whether the second
	// order can be the narrower, which needs the overlaps below.
	zn := math.Sqrt(vecDot(z, z))
	bk := lw.beta[k-1] * lw.vnorm[k]
	want := math.Max(math.Max(lanczosRelTol*math.Max(zn, floorRoot), 0.25*(floorRoot-zn)), targetFloor)
	j1 := 0.0
	if bk > 0 {
		j1 = absExpSumIntegral(c, theta, tau, 1e-3*want/bk) + coefErr(c, tau*growth, 2)
	}
	secondOrder := bk > 0 && bk*j1 < zn

	// ŷ(τ) = Vẑ(τ) and its norm, and (second order) the overlaps
	// o_j = v_jᵀv_{k+1}: zero in exact arithmetic; what loss of
	// orthogonality leaves of them enters through H.
	y := lw.w
	clear(y)
	var ov []float64
	if secondOrder {
		ov = make([]float64, k)
	}
	vf2 := 0.0
	for j := 0; j < k; j++ {
		v := lw.vec(j)
		zj := z[j]
		if ov != nil {
			ov[j] = axpyDot(y, zj, v, lw.vec(k))
		} else {
			for r, x := range v {
				y[r] += zj * x
			}
		}
		vf2 += lw.vnorm[j] * lw.vnorm[j]
	}
	vf := math.Sqrt(vf2) * (1 + highamGamma(k+2)) // ≥ ‖V‖_F
	yn := math.Sqrt(vecDot(y, y))
	yErr := highamGamma(k+2)*vecNorm(z)*vf + zErr*vf + highamGamma(lw.n+2)*yn

	ff := 0.0
	for j := 0; j < k; j++ {
		ff += lw.fnorm[j] * lw.fnorm[j]
	}
	ff = math.Sqrt(ff) * (1 + highamGamma(k+2))

	// ‖δ₀‖ + ∫₀^τ ‖ρ₂‖, the start and the rounding and eigensolver
	// residuals; ∫₀^τ ‖e^{−sΘ̂}Q̂ᵀe₁‖ ds is far below τ·g·‖Q̂‖ once the heat
	// has spread.
	head := math.Min(tau*growth*qn, headIntegral(Q, theta, tau))
	small := (lw.startErr + nb*vf*dn + nb*head*(vf*eq+ff*qn)) * lanczosRoundUp

	// First order: |‖u(τ)‖ − ‖ŷ(τ)‖| ≤ small + β_k‖v_{k+1}‖J₁.
	yUp := yn*(1+roundoffU) + yErr*lanczosRoundUp
	yLo := math.Max(0, yn*(1-roundoffU)-yErr*lanczosRoundUp)
	delta := (small + bk*j1) * lanczosRoundUp // ε ≥ ‖δ(τ)‖
	first = [2]float64{math.Max(0, yLo-delta), yUp + delta}
	if secondOrder {
		later := laterCoefs(c, theta, tau)
		j2 := absExpSumIntegral(later, theta, tau, 1e-3*want/bk) + coefErr(later, tau*growth, 5) // ≥ ∫_τ^{2τ}|ẑ_k|
		h, tail := 0.0, 0.0
		for m := 0; m < k; m++ {
			sup := math.Exp(-tau * theta[m]) // of e^{−tθ_m} over t ∈ [τ, 2τ]
			if theta[m] < 0 {
				sup = math.Exp(-2 * tau * theta[m])
			}
			p, pa := 0.0, 0.0
			for r := 0; r < k; r++ {
				p += Q.At(r, m) * ov[r]
				pa += math.Abs(Q.At(r, m) * ov[r])
			}
			q1 := Q.At(0, m)
			h += (math.Abs(p) + highamGamma(k)*pa) * math.Abs(q1) * sup
			tail += q1 * q1 * sup * sup
		}
		ovErr := highamGamma(lw.n) * lw.vnorm[k] * vf // ≥ ‖fl(o) − o‖
		H := nb*h*(1+highamGamma(k+6)) + ovErr*nb*qn2*growth*growth
		r2 := nb * (vf*eq + ff*qn) * tau * math.Sqrt(tail) * (1 + highamGamma(k+6)) // ≥ ∫_τ^{2τ}‖ρ₂‖
		G := H + lw.vnorm[k]*(bk*j2+r2)
		X := (yUp*small + lw.beta[k-1]*j1*G) * lanczosRoundUp // ≥ |ŷ(τ)ᵀδ(τ)|
		qUp := (yUp*yUp + 2*X + delta*delta) * (1 + 8*roundoffU)
		qLo := (yLo*yLo*(1-2*roundoffU) - 2*X*(1+2*roundoffU)) * (1 - 2*roundoffU)
		second = [2]float64{math.Sqrt(math.Max(0, qLo)) * (1 - 2*roundoffU), math.Sqrt(qUp) * (1 + 2*roundoffU)}
	}
	for _, b := range [2]*[2]float64{&first, &second} {
		if math.IsNaN(b[0]) || math.IsNaN(b[1]) {
			*b = [2]float64{0, math.Inf(1)}
		}
	}
	return first, second
}

// axpyDot sets y += a·x and returns xᵀv, reading x once; four partial
// sums keep the dot product off the adder's latency (any order of
// summation has the same bound γ_n Σ|x_r v_r|).
func axpyDot(y []float64, a float64, x, v []float64) float64 {
	var s0, s1, s2, s3 float64
	n := len(x)
	y, v = y[:n], v[:n]
	r := 0
	for ; r+4 <= n; r += 4 {
		y[r] += a * x[r]
		y[r+1] += a * x[r+1]
		y[r+2] += a * x[r+2]
		y[r+3] += a * x[r+3]
		s0 += x[r] * v[r]
		s1 += x[r+1] * v[r+1]
		s2 += x[r+2] * v[r+2]
		s3 += x[r+3] * v[r+3]
	}
	for ; r < n; r++ {
		y[r] += a * x[r]
		s0 += x[r] * v[r]
	}
	return (s0 + s1) + (s2 + s3)
}

// coefErr bounds how much ∫₀^T |Σ_m c_m e^{−sθ_m}| ds can move when each
// computed c_m is within γ_ops|c_m| of the exact coefficient, given
// gT ≥ ∫₀^T max_m e^{−sθ_m} ds (T·g).
func coefErr(c []float64, gT float64, ops int) float64 {
	s := 0.0
	for _, x := range c {
		s += math.Abs(x)
	}
	return highamGamma(ops) * s * gT * (1 + highamGamma(len(c)+2))
}

// laterCoefs returns the coefficients c_m e^{−τθ_m} of s ↦ ẑ_k(τ + s)
// (two more roundings each: the exponential and the product).
func laterCoefs(c, theta []float64, tau float64) []float64 {
	out := make([]float64, len(c))
	for m, x := range c {
		out[m] = x * math.Exp(-tau*theta[m])
	}
	return out
}

// headIntegral returns an upper bound on ∫₀^τ φ(s) ds,
// φ(s) = ‖e^{−sΘ̂}Q̂ᵀe₁‖ = (Σ_m Q̂_1m² e^{−2sθ_m})^{1/2}: every term is
// monotone in s, so on a step [s₀, s₁] φ ≤ (Σ_m Q̂_1m² max(e^{−2s₀θ_m},
// e^{−2s₁θ_m}))^{1/2}. The steps s_i = τ(i/64)² are short where φ falls
// fastest; any grid is valid. The factor covers the rounding of the sums
// (γ_{k+8}, exp within an ulp).
func headIntegral(Q *mat.Dense, theta []float64, tau float64) float64 {
	const steps = 64
	k := len(theta)
	p := make([]float64, k)
	e := make([]float64, k) // e^{−2s₀θ_m} at the left end of the step
	for m := range theta {
		q := Q.At(0, m)
		p[m], e[m] = q*q, 1
	}
	total, s0 := 0.0, 0.0
	for i := 1; i <= steps; i++ {
		s1 := tau * float64(i*i) / (steps * steps)
		sum := 0.0
		for m, th := range theta {
			e1 := math.Exp(-2 * s1 * th)
			sum += p[m] * math.Max(e[m], e1)
			e[m] = e1
		}
		total += (s1 - s0) * math.Sqrt(sum)
		s0 = s1
	}
	return total * (1 + highamGamma(k+8)) * roundUp
}

// absExpSumIntegral returns an upper bound on ∫₀^τ |g(s)| ds,
// g(s) = Σ_m c_m e^{−sθ_m}. On each step [a, a+h], with ℓ the linear
// interpolant of g at the ends, |g| ≤ |ℓ| + |g − ℓ| gives
//
//	∫_a^{a+h} |g| ≤ h(|g(a)| + |g(a+h)|)/2 + h³/12 · sup|g''|.
//
// g(a+h) and g” on the step come from the degree-P Taylor expansion at a
// (derivatives D_r = Σ c_m(−θ_m)^r e^{−aθ_m}, evaluated with their
// cancellation and a rounding bound) plus the Lagrange remainder, which is
// at most h^{P+1−r}/(P+1−r)!·M for the r-th derivative, M = Σ|c_m||θ_m|^{P+1}
// sup_{[a,a+h]} e^{−sθ_m}. The step h is chosen so that the remainders add
// up to about eps; any h is valid, eps only sets the tightness.
func absExpSumIntegral(c, theta []float64, tau, eps float64) float64 {
	const P = 8
	var fact [P + 2]float64
	fact[0] = 1
	for r := 1; r <= P+1; r++ {
		fact[r] = fact[r-1] * float64(r)
	}
	k := len(c)
	hMin := tau * math.Ldexp(1, -22)
	total := 0.0
	for a := 0.0; a < tau; {
		var D, Derr [P + 1]float64
		M := 0.0
		for m, th := range theta {
			e := math.Exp(-a * th)
			sup := e
			if th < 0 {
				sup = math.Exp(-tau * th)
			}
			p := c[m] * e
			pa := math.Abs(p)
			for r := 0; r <= P; r++ {
				D[r] += p
				Derr[r] += pa
				p *= -th
				pa *= math.Abs(th)
			}
			M += math.Abs(c[m]) * math.Pow(math.Abs(th), P+1) * sup
		}
		for r := range Derr {
			Derr[r] *= highamGamma(k + r + 3)
		}
		h := tau - a
		if M > 0 {
			h = math.Min(h, math.Pow(fact[P-1]*eps/(tau*M), 1/float64(P+1)))
		}
		h = math.Max(h, math.Min(hMin, tau-a))
		// Cover the rounding of a+h: bound on a slightly longer step.
		h *= 1 + 4*roundoffU
		// |g(a+h)| from the Taylor polynomial (Horner) and its remainder.
		pv := 0.0
		pErr := M * math.Pow(h, P+1) / fact[P+1]
		hr := 1.0
		for r := 0; r <= P; r++ {
			// Horner's rounding is at most γ_{3P+3} Σ|D_r|h^r/r!.
			pErr += (Derr[r] + highamGamma(3*P+3)*math.Abs(D[r])) * hr / fact[r]
			hr *= h
		}
		for r := P; r >= 0; r-- {
			pv = pv*h/float64(r+1) + D[r]
		}
		// sup|g''| on the step.
		g2 := M * math.Pow(h, P-1) / fact[P-1]
		hr = 1.0
		for r := 2; r <= P; r++ {
			g2 += (math.Abs(D[r]) + Derr[r]) * hr / fact[r-2]
			hr *= h
		}
		step := h*(math.Abs(D[0])+Derr[0]+math.Abs(pv)+pErr*(1+highamGamma(2*P+4)))/2 + h*h*h/12*g2
		total += step * (1 + highamGamma(2*P+8))
		if a+h >= tau {
			break
		}
		a += h
	}
	return total
}

// lanczosRelTol is the relative width at which an edge's bracket counts as
// settled: ten times inside ExactRelativeSlack, and cheap since the brackets
// converge faster than geometrically once Lanczos has resolved the spectrum
// that matters.
const lanczosRelTol = 1e-7

// lanczosMemory caps the Krylov vectors kept by all workers together.
var lanczosMemory = 1 << 30 // a variable only so that tests can make it small

// lanczosMaxSteps is the number of Lanczos steps the memory cap allows on
// g with the given number of workers, at most 600.
func lanczosMaxSteps(g *laplacian.Graph, workers int) int {
	return min(600, lanczosMemory/(8*max(1, g.N())*max(1, workers))-1)
}

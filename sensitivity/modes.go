package sensitivity

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// modeBasis is a computed set of approximate eigenpairs (θ_k, Q̂_k) of L,
// Q̂ stored n×m row-major (row i is node i), with what the certificate of
// docs/derivations.md §2.8 needs: per column an upper bound on the
// residual ‖LQ̃_k − θ_kQ̃_k‖ of its exact projection Q̃_k onto the
// complement of the null space, and η ≥ ‖Q̃ᵀQ̃ − I‖₂.
type modeBasis struct {
	n, m  int
	q     []float64
	theta []float64
	res   []float64
	eta   float64
}

// newModeBasis bounds the residuals and the orthogonality defect of the
// columns q (n×m row-major, meant to lie off the null space) with
// Ritz values theta. It reads g's Laplacian in exact arithmetic; every
// rounding of the computation is bounded.
func newModeBasis(g *laplacian.Graph, q []float64, m int, theta []float64) modeBasis {
	n := g.N()
	u := roundoffU
	b := modeBasis{n: n, m: m, q: q, theta: theta, res: make([]float64, m)}

	// ν_k ≥ ‖P_N Q̂_k‖: the component means, with their summation error.
	comps, label := g.Components()
	size := make([]float64, comps)
	for _, c := range label {
		size[c]++
	}
	sum := make([]float64, comps*m)
	abs := make([]float64, comps*m)
	for i := 0; i < n; i++ {
		c := int(label[i])
		row := q[i*m : i*m+m]
		s, a := sum[c*m:c*m+m], abs[c*m:c*m+m]
		for k, v := range row {
			s[k] += v
			a[k] += math.Abs(v)
		}
	}
	nu2 := make([]float64, m)
	nuSum := 0.0
	for c := 0; c < comps; c++ {
		gam := highamGamma(int(size[c]) + 1)
		for k := 0; k < m; k++ {
			t := math.Abs(sum[c*m+k]) + gam*abs[c*m+k]
			nu2[k] += t * t / size[c]
		}
	}
	for k := range nu2 {
		nu2[k] *= 1 + highamGamma(comps+3)
		nuSum += nu2[k]
	}

	// η: ‖Q̂ᵀQ̂ − I‖_F with the Gram matrix's rounding, plus ‖P_N Q̂‖²_F for
	// the projection (Q̃ᵀQ̃ = Q̂ᵀQ̂ − Q̂ᵀP_N Q̂).
	gram := blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: make([]float64, m*m)}
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: m, Stride: m, Data: q}, 0, gram)
	defect, qF2 := 0.0, 0.0
	for i := 0; i < m; i++ {
		row := gram.Data[i*m : i*m+m]
		for j := i; j < m; j++ {
			v := row[j]
			if i == j {
				qF2 += v
				v--
				defect += v * v
			} else {
				defect += 2 * v * v
			}
		}
	}
	qF2 *= 1 + highamGamma(n+1)
	b.eta = (math.Sqrt(defect)*(1+highamGamma(m*m+3)) + highamGamma(n+1)*qF2 + nuSum) * roundUp

	// Residuals LQ̂_k − θ_kQ̂_k, column by column, plus the rounding of the
	// product (‖|L|‖ ≤ 2 d_max, the weighted degrees' own sums included)
	// and θ_k ν_k for the projection (LQ̃_k = LQ̂_k).
	lq := make([]float64, n*m)
	g.Laplacian().MulBlock(lq, q, m)
	r2 := make([]float64, m)
	c2 := make([]float64, m)
	for i := 0; i < n; i++ {
		row, qi := lq[i*m:i*m+m], q[i*m:i*m+m]
		for k, v := range row {
			d := v - qi[k]*theta[k]
			r2[k] += d * d
			c2[k] += qi[k] * qi[k]
		}
	}
	wmax := 0
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		wmax = max(wmax, len(c))
	}
	absL := 2 * g.MaxDegree()
	for k := range b.res {
		qn := math.Sqrt(c2[k] * (1 + highamGamma(n+1)))
		fl := highamGamma(wmax+4) * (absL + math.Abs(theta[k])) * qn
		b.res[k] = (math.Sqrt(r2[k])*(1+highamGamma(n+3)) + fl + math.Abs(theta[k])*math.Sqrt(nu2[k])) * roundUp
	}
	_ = u
	return b
}

// modeBrackets is the certified bracket of ‖exp(−τL)(e_i − e_j)‖ for
// every edge from the basis b and muCert, a proven lower bound on every
// eigenvalue of L, off its null space, whose eigenvector is not in the
// span of the true eigenvectors b approximates (+Inf when b has
// n − components columns: then there is none). It returns the largest
// upper end, its edge, the largest lower end, and ok = false when the
// basis is too far from orthonormal or a Ritz value reaches muCert (no
// certificate). docs/derivations.md §2.8.
func modeBrackets(g *laplacian.Graph, b modeBasis, tau, muCert float64) (up, lo float64, edge [2]int, ok bool) {
	m := b.m
	u := roundoffU
	if b.eta >= 0.5 {
		return 0, 0, [2]int{-1, -1}, false
	}
	// ‖P_F Q̃‖_F: the part of the basis on the eigenvectors above muCert.
	pf2, rF2, thMin, thAbs := 0.0, 0.0, math.Inf(1), 0.0
	for k, th := range b.theta {
		if !math.IsInf(muCert, 1) {
			if th >= muCert {
				return 0, 0, [2]int{-1, -1}, false
			}
			t := b.res[k] / (muCert - th)
			pf2 += t * t
		}
		rF2 += b.res[k] * b.res[k]
		thMin = math.Min(thMin, th)
		thAbs = math.Max(thAbs, math.Abs(th))
	}
	pf := math.Sqrt(pf2) * (1 + highamGamma(m+2))
	s := math.Sqrt(1-b.eta)*(1-4*u) - pf
	if s <= 0 {
		return 0, 0, [2]int{-1, -1}, false
	}
	// ℓ: a lower bound on the smallest eigenvalue off the null space.
	ell := math.Min(muCert, thMin-math.Sqrt(rF2)*(1+highamGamma(m+2))/s*(1+4*u))
	ellP := math.Max(ell, 0)
	// Everything is computed relative to the scale S = e^{−τℓ₊}, the
	// slowest decay: squares of e^{−τθ} would underflow long before Δ2
	// does (K_5 at τ = 100: Δ2 = 1.0·10⁻²¹⁷, its square 10⁻⁴³⁴).
	scale := math.Exp(-tau*ellP) * roundUp
	tail := 0.0
	if !math.IsInf(muCert, 1) {
		tail = math.Exp(-tau*(math.Max(muCert, 0)-ellP)) * roundUp
	}
	// Per mode: e^{−τ(θ_k−ℓ₊)} and the Duhamel weight
	// ‖R̃_k‖ ∫₀^τ e^{−(τ−s)ℓ₊} e^{−sθ_k} ds / S = ‖R̃_k‖ τ e^{−τ(min(ℓ₊,θ_k)−ℓ₊)} h(τ|θ_k − ℓ₊|),
	// h(x) = (1 − e^{−x})/x.
	ex := make([]float64, m)
	wd := make([]float64, m)
	for k, th := range b.theta {
		ex[k] = math.Exp(-tau * (th - ellP))
		x := tau * math.Abs(th-ellP)
		h := 1.0
		if x > 0 {
			h = -math.Expm1(-x) / x
		}
		wd[k] = b.res[k] * tau * math.Exp(-tau*(math.Min(ellP, th)-ellP)) * h * roundUp
	}
	// Relative error of each z_k = fl(e^{−τ(θ_k−ℓ₊)}) ŷ_k (the exponential
	// of a rounded argument, the product), of the sum of squares and its
	// root, and of the scale.
	zRel := (2*tau*(thAbs+ellP)+4)*u + highamGamma(m+3) + relSlack
	eta := b.eta
	up, lo, edge = -1, 0, [2]int{-1, -1}
	g.ForEachEdge(func(i, j int, _ float64) {
		qi, qj := b.q[i*m:i*m+m], b.q[j*m:j*m+m]
		y2, z2, dh := 0.0, 0.0, 0.0
		for k := range qi {
			y := qi[k] - qj[k]
			y2 += y * y
			z := ex[k] * y
			z2 += z * z
			dh += wd[k] * math.Abs(y)
		}
		yn := math.Sqrt(y2)
		dh *= 1 + highamGamma(m+2)
		// ‖r‖ for r = b − Q̃ŷ, and ‖P r‖ for its part on the slow modes.
		r2 := 2 - (1-eta-2*u)*y2*(1-highamGamma(m+1))
		rn := math.Sqrt(math.Max(r2, 0)) * (1 + 4*u)
		pr := ((u+eta)*yn*(1+highamGamma(m+1)) + pf*rn) / s * (1 + 4*u)
		rest := math.Hypot(pr, tail*rn) * (1 + 4*u)
		zn := math.Sqrt(z2)
		e := (dh + rest) * (1 + 4*u)
		hi := (math.Sqrt(1+eta)*zn*(1+zRel)*(1+4*u) + e) * (1 + 4*u)
		lw := (math.Sqrt(1-eta)*zn*(1-zRel)*(1-4*u) - e) * (1 - 4*u)
		// Scaled back; an upper end that underflows becomes the least
		// positive float, never 0.
		hi = math.Nextafter(hi*scale*(1+4*u), math.Inf(1))
		hi = math.Min(hi, math.Sqrt2) // exp(−τL) is a contraction and ‖b‖ = √2
		lw = math.Max(0, lw*scale*(1-4*u))
		if hi > up {
			up, edge = hi, [2]int{i, j}
		}
		lo = math.Max(lo, lw)
	})
	return up, lo, edge, true
}

// countCertificate proves that L has at most m eigenvalues below the
// returned μ' ≤ mu off its null space: a floating-point Cholesky
// factorization of B̂ = fl(L − μI + σQ̂Q̂ᵀ + Σ_C σ_C 1_C1_Cᵀ) (q the n×m basis,
// C the components) that runs to completion shows B̂ + ΔB ⪰ 0 with
// ‖ΔB‖₂ ≤ γ_{n+1}‖R̂‖²_F, and B̂ is within a computed E of the exact
// matrix; a PSD term of rank m + components then leaves at most that many
// eigenvalues of L below μ − ‖ΔB‖ − E (docs/derivations.md §2.8). It
// returns ok = false when the factorization breaks down (μ too close to an
// eigenvalue the basis misses) or is stopped.
func countCertificate(g *laplacian.Graph, q []float64, m int, mu float64, stop func() bool) (float64, bool) {
	n := g.N()
	sigma := 2*math.Abs(mu) + 1
	a := make([]float64, n*n)
	if m > 0 {
		blas64.Gemm(blas.NoTrans, blas.Trans, sigma, blas64.General{Rows: n, Cols: m, Stride: m, Data: q},
			blas64.General{Rows: n, Cols: m, Stride: m, Data: q}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: a})
	}
	if stop() {
		return 0, false
	}
	qF2 := 0.0
	for _, v := range q {
		qF2 += v * v
	}
	comps, label := g.Components()
	size := make([]float64, comps)
	for _, c := range label {
		size[c]++
	}
	sc := make([]float64, comps)
	ccF := 0.0 // ‖Σ_C σ_C 1_C1_Cᵀ‖_F
	for c := range sc {
		sc[c] = sigma / size[c]
		ccF += sc[c] * sc[c] * size[c] * size[c]
	}
	// B̂ = W + L − μI + σ_C on each component's block, rounded once per
	// addition: entrywise ≤ γ_3 (|W| + |L| + μ + σ_C).
	for i := 0; i < n; i++ {
		row := a[i*n : i*n+n]
		ci := label[i]
		for j := range row {
			if label[j] == ci {
				row[j] += sc[ci]
			}
		}
		row[i] += g.Degree(i) - mu
		cols, ws := g.Neighbors(i)
		for k, j := range cols {
			w := 1.0
			if ws != nil {
				w = ws[k]
			}
			row[j] -= w
		}
	}
	lF2, wmax := 0.0, 0
	for i := 0; i < n; i++ {
		d := g.Degree(i)
		lF2 += d * d * 2 // diagonal and the row's off-diagonal weights (Σw² ≤ d²)
		c, _ := g.Neighbors(i)
		wmax = max(wmax, len(c))
	}
	build := highamGamma(m+1)*sigma*qF2*(1+highamGamma(n*m+1)) +
		highamGamma(3)*(sigma*qF2*(1+highamGamma(m+2))+math.Sqrt(lF2)+math.Abs(mu)*math.Sqrt(float64(n))+math.Sqrt(ccF)) +
		highamGamma(wmax+1)*math.Sqrt(lF2) // weighted degrees summed in floating point
	if stop() {
		return 0, false
	}
	t, ok := choleskyStoppable(a, n, stop)
	if !ok {
		return 0, false
	}
	r2 := 0.0
	for i := 0; i < n; i++ {
		for _, v := range t[i*n+i : i*n+n] {
			r2 += v * v
		}
	}
	delta := (highamGamma(n+1)*r2*(1+highamGamma(n*n+1)) + build) * roundUp
	return mu - delta, true
}

// choleskyStoppable factors the symmetric n×n row-major a = UᵀU in place
// (upper triangle) by blocks, calling stop between blocks. It returns
// a's storage, whose upper triangle holds U, and false on breakdown or a
// stop. Every entry of U is an inner product a_ij − Σ u_ki u_kj computed in
// some order and divided, so Higham's bound |ΔA| ≤ γ_{n+1}|Uᵀ||U| holds.
func choleskyStoppable(a []float64, n int, stop func() bool) ([]float64, bool) {
	const nb = 128
	for k := 0; k < n; k += nb {
		if stop() {
			return nil, false
		}
		kb := min(nb, n-k)
		// Diagonal block.
		diag := blas64.Symmetric{N: kb, Stride: n, Uplo: blas.Upper, Data: a[k*n+k:]}
		if _, ok := lapack64.Potrf(diag); !ok {
			return nil, false
		}
		if k+kb < n {
			// Row panel: U_12 = U_11⁻ᵀ A_12, then A_22 −= U_12ᵀ U_12.
			rest := n - k - kb
			panel := blas64.General{Rows: kb, Cols: rest, Stride: n, Data: a[k*n+k+kb:]}
			blas64.Trsm(blas.Left, blas.Trans, 1, blas64.Triangular{N: kb, Stride: n, Uplo: blas.Upper, Diag: blas.NonUnit, Data: a[k*n+k:]}, panel)
			trailingUpdate(a, n, k+kb, rest, panel)
		}
	}
	return a, true
}

// trailingUpdate sets A_22 −= U_12ᵀ U_12 on the upper triangle of the
// trailing rest×rest block of a (row-major n×n) starting at (off, off),
// U_12 the kb×rest panel: on two goroutines, the leading h = 0.29·rest
// columns (a triangle and the rectangle beside it) on one and the
// remaining triangle on the other, which balances their flops. Each
// entry is still one inner product, so Higham's bound holds unchanged.
func trailingUpdate(a []float64, n, off, rest int, panel blas64.General) {
	h := int(0.29 * float64(rest))
	if rest < 256 || h < 1 {
		blas64.Syrk(blas.Trans, -1, panel, 1, blas64.Symmetric{N: rest, Stride: n, Uplo: blas.Upper, Data: a[off*n+off:]})
		return
	}
	sub := func(c0, c1 int) blas64.General {
		return blas64.General{Rows: panel.Rows, Cols: c1 - c0, Stride: panel.Stride, Data: panel.Data[c0:]}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		blas64.Syrk(blas.Trans, -1, sub(h, rest), 1, blas64.Symmetric{N: rest - h, Stride: n, Uplo: blas.Upper, Data: a[(off+h)*n+off+h:]})
	}()
	blas64.Syrk(blas.Trans, -1, sub(0, h), 1, blas64.Symmetric{N: h, Stride: n, Uplo: blas.Upper, Data: a[off*n+off:]})
	blas64.Gemm(blas.Trans, blas.NoTrans, -1, sub(0, h), sub(h, rest), 1, blas64.General{Rows: h, Cols: rest - h, Stride: n, Data: a[off*n+off+h:]})
	wg.Wait()
}

// lowModes computes the p lowest eigenpairs of L off its null space by
// Chebyshev-filtered subspace iteration (Zhou, Saad, Tiago and
// Chelikowsky 2006): a block of p vectors is filtered by a Chebyshev
// polynomial that damps [θ_p, λ_max], projected off the null space,
// orthonormalized and Rayleigh–Ritz'd, until the want lowest Ritz pairs
// have residuals at most resTol, or the converged pairs already reach
// θ₀ + span with cutRoom more past it (span +Inf: never), or maxIter
// passes, or stop. x0, when
// not nil, seeds the first columns (n×p0 row-major). It returns the block
// (n×p row-major, Ritz values ascending) and how many leading pairs
// converged. Nothing here is trusted: modeBrackets certifies the result.
func lowModes(g *laplacian.Graph, p, want int, span float64, x0 []float64, p0 int, resTol float64, maxIter int, stop func() bool) ([]float64, []float64, int) {
	n := g.N()
	comps, label := g.Components()
	op := g.Laplacian()
	B := expm.LambdaMaxBound(g)
	rng := rand.New(rand.NewPCG(uint64(n), uint64(p)))
	x := make([]float64, n*p)
	for i := 0; i < n; i++ {
		for k := 0; k < p; k++ {
			if k < p0 {
				x[i*p+k] = x0[i*p0+k]
			} else {
				x[i*p+k] = rng.NormFloat64()
			}
		}
	}
	y := make([]float64, n*p)
	lx := make([]float64, n*p)
	theta := make([]float64, p)
	res := make([]float64, p)
	orth := func() {
		projectOffNull(x, p, label, comps)
		orthonormalize(x, n, p)
	}
	// rr replaces x by its Ritz vectors and sets theta and res.
	rr := func() {
		op.MulBlock(lx, x, p)
		h := make([]float64, p*p)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: p, Stride: p, Data: x},
			blas64.General{Rows: n, Cols: p, Stride: p, Data: lx}, 0, blas64.General{Rows: p, Cols: p, Stride: p, Data: h})
		for i := 0; i < p; i++ {
			for j := i + 1; j < p; j++ {
				v := (h[i*p+j] + h[j*p+i]) / 2
				h[i*p+j], h[j*p+i] = v, v
			}
		}
		th, ok := eigenSymRows(p, h)
		if !ok {
			return
		}
		copy(theta, th)
		vg := blas64.General{Rows: p, Cols: p, Stride: p, Data: h}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: p, Stride: p, Data: x}, vg, 0, blas64.General{Rows: n, Cols: p, Stride: p, Data: y})
		x, y = y, x
		// L times the Ritz vectors: a sparse product (nnz·p flops) is far
		// cheaper than rotating lx (n·p² flops).
		op.MulBlock(y, x, p)
		clear(res)
		for i := 0; i < n; i++ {
			for k := 0; k < p; k++ {
				d := y[i*p+k] - theta[k]*x[i*p+k]
				res[k] += d * d
			}
		}
		for k := range res {
			res[k] = math.Sqrt(res[k])
		}
	}
	orth()
	rr()
	var kern *blockKernel
	conv := 0
	for it := 0; ; it++ {
		conv = 0
		for conv < p && res[conv] <= resTol {
			conv++
		}
		if conv >= want || cutConverged(theta, conv, span) >= 0 || it >= maxIter || stop() {
			break
		}
		// Filter: damp [a, B], a the top Ritz value; degree so that the
		// want-th pair gains about e^{23} per pass.
		a := theta[p-1]
		lo := theta[0]
		if a >= B || a <= lo {
			break
		}
		e, c := (B-a)/2, (B+a)/2
		xw := (c - theta[min(want, p-1)]) / e
		deg := int(math.Ceil(23 / math.Acosh(math.Max(xw, acoshArgFloor))))
		deg = max(8, min(deg, 400))
		if p%columnBlock == 0 {
			if kern == nil {
				kern = newBlockKernel(g)
			}
			filterPanels(kern, x, p, deg, lo, a, B, label, comps, stop)
		} else {
			x, y = filterBlock(op, x, y, p, deg, lo, a, B, label, comps, stop)
		}
		orth()
		rr()
	}
	return x, theta, conv
}

// filterBlock applies the Chebyshev filter of degree deg that damps
// [a, B] (scaled so that it is 1 at lo, below a) to the n×p row-major
// block x, with y as scratch, and returns the filtered block and the
// scratch (chebFilter with the row-major product).
func filterBlock(op *laplacian.Operator, x, y []float64, p, deg int, lo, a, B float64, label []int32, comps int, stop func() bool) ([]float64, []float64) {
	step := func(dst, src, z []float64, a1, c1, e1 float64) { op.MulBlockAffine(dst, src, p, a1, c1, z, e1) }
	return chebFilter(step, x, y, p, deg, lo, a, B, label, comps, stop)
}

// chebFilter is the filter's recurrence (Zhou et al. 2006, Algorithm
// 4.1) on blocks of width columns, step(dst, src, z, a, c, e) setting
// dst = a·L·src + c·src + e·z (z may be dst, or nil with e = 0). It
// returns the filtered block and the scratch, which are x and y in some
// order. Every 16 steps the null space, which lies below the interval and
// grows fastest, is projected off, so that its rounding-level part cannot
// swamp the block.
func chebFilter(step func(dst, src, z []float64, a, c, e float64), x, y []float64, width, deg int, lo, a, B float64, label []int32, comps int, stop func() bool) ([]float64, []float64) {
	e, c := (B-a)/2, (B+a)/2
	sigma := e / (lo - c)
	sigma1 := sigma
	step(y, x, nil, sigma1/e, -sigma1*c/e, 0)
	for d := 2; d <= deg; d++ {
		s2 := 1 / (2/sigma1 - sigma)
		step(x, y, x, 2*s2/e, -2*s2*c/e, -sigma*s2)
		x, y = y, x
		sigma = s2
		if d%16 == 0 {
			projectOffNull(x, width, label, comps)
			projectOffNull(y, width, label, comps)
			if stop() {
				break
			}
		}
	}
	return y, x
}

// filterPanels is filterBlock for p a multiple of columnBlock, in place:
// the block is cut into n×16 panels, each filtered on its own by the
// AVX2 block kernel (the recurrence acts column by column and both
// kernels round alike, so the result is filterBlock's to the bit). A
// panel of 16 columns stays in cache across the deg steps, where the full
// row-major block (n·p doubles) does not; the panels are shared among
// GOMAXPROCS workers, or, with fewer panels than twice the workers, each
// step's rows are.
func filterPanels(kern *blockKernel, x []float64, p, deg int, lo, a, B float64, label []int32, comps int, stop func() bool) {
	const b = columnBlock
	n := len(x) / p
	panels := p / b
	workers := min(runtime.GOMAXPROCS(0), panels)
	rowParallel := panels < 2*workers
	if rowParallel {
		workers = 1
	}
	step := func(dst, src, z []float64, a1, c1, e1 float64) {
		if rowParallel {
			kern.step(dst, src, z, a1, c1, e1)
		} else {
			kern.rows(0, n, dst, src, z, a1, c1, e1)
		}
	}
	one := func(px, py []float64) {
		if r, _ := chebFilter(step, px, py, b, deg, lo, a, B, label, comps, stop); &r[0] != &px[0] {
			copy(px, r)
		}
	}
	var wg sync.WaitGroup
	next := make(chan int, panels)
	for t := range panels {
		next <- t
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			px := make([]float64, n*b)
			py := make([]float64, n*b)
			for t := range next {
				for i := 0; i < n; i++ {
					copy(px[i*b:i*b+b], x[i*p+t*b:i*p+t*b+b])
				}
				one(px, py)
				for i := 0; i < n; i++ {
					copy(x[i*p+t*b:i*p+t*b+b], px[i*b:i*b+b])
				}
			}
		}()
	}
	wg.Wait()
}

// modesBelow estimates how many eigenvalues of L off its null space lie
// below θ₀ + span from the first conv converged Ritz values theta
// (ascending): their count when one of them is past the cut, otherwise
// the counting function N(θ₀ + x) ≈ conv·(x/x_conv)^β extrapolated to
// x = span. β > 0 is taken as given; β = 0 fits it on the upper half of
// the converged values (clamped to [1, 3]). The density grows with λ at
// the bottom of these spectra: a linear extrapolation (β = 1) from 40
// converged values said 87 where 122 modes are (pa:n=5000,m=3, τ = 100)
// and 139 where about 400 are (pa:n=5000,m=10, τ = 20); the fit (β ≈ 1.8,
// 2.0) says 157 and 521. +Inf with fewer than 4 converged.
func modesBelow(theta []float64, conv int, span, beta float64) float64 {
	below := 0
	for _, th := range theta[:conv] {
		if th < theta[0]+span {
			below++
		}
	}
	if below < conv {
		return float64(below)
	}
	if conv < 4 {
		return math.Inf(1)
	}
	h := conv / 2
	xh, xc := theta[h-1]-theta[0], theta[conv-1]-theta[0]
	if !(xh > 0 && xc > xh) {
		return math.Inf(1)
	}
	if beta <= 0 {
		beta = math.Log(float64(conv)/float64(h)) / math.Log(xc/xh)
		beta = math.Max(1, math.Min(3, beta))
	}
	return float64(conv) * math.Pow(span/xc, beta)
}

// slowModesBlock is the block size for an estimate of est modes: est plus
// cutRoom converged pairs at 3/4 of the block, in multiples of 16 (the
// filter's panels).
func slowModesBlock(est float64) int {
	return int(math.Ceil((est+cutRoom)/0.75/columnBlock)) * columnBlock
}

// cutRoom is how many converged Ritz pairs past the cut θ₀ + span the
// slow modes want before they stop iterating: the count certificate's μ
// is put in the widest gap among them.
const cutRoom = 8

// cutConverged is the index k ≥ 1 of the first converged Ritz value
// (theta ascending, the first conv converged) at or past θ₀ + span, when
// at least cutRoom more converged pairs follow it (or the block ends
// there); −1 otherwise.
func cutConverged(theta []float64, conv int, span float64) int {
	for i := 1; i < conv; i++ {
		if theta[i] >= theta[0]+span {
			if i+cutRoom <= conv || conv == len(theta) {
				return i
			}
			return -1
		}
	}
	return -1
}

// orthonormalize replaces the n×p row-major block x by an orthonormal
// basis of its columns (Householder QR).
func orthonormalize(x []float64, n, p int) {
	a := blas64.General{Rows: n, Cols: p, Stride: p, Data: x}
	tau := make([]float64, p)
	work := make([]float64, 1)
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(a, tau, work, len(work))
	lapack64.Orgqr(a, tau, work, -1)
	if int(work[0]) > len(work) {
		work = make([]float64, int(work[0]))
	}
	lapack64.Orgqr(a, tau, work, len(work))
}

// slowModesLimit is the largest graph the slow-modes method takes: its
// count certificate factors a dense n×n matrix (n³/3 flops, 8n² bytes).
const slowModesLimit = 5000

// slowModesMaxBlock caps the subspace when the method is forced, and
// slowModesAutoBlock when Auto tries it first; a graph needing more slow
// modes at the given τ is left to the other methods (BA 3 000, m = 3, has
// about 600 eigenvalues within 1.25 of λ₂ = 1.26, the span τ = 20 needs).
const (
	slowModesMaxBlock  = 1024
	slowModesAutoBlock = 256
)

// slowModesGraphSensitivity computes Δ2 from the slow modes of L (the
// `slow-modes` method, docs/derivations.md §2.8): the lowest eigenpairs up
// to a cut μ with e^{−τ(μ−λ₂)} negligible, computed by lowModes, a count
// certificate that no other eigenvalue lies below μ' ≈ μ, and the bracket
// of modeBrackets, whose error terms all carry e^{−τλ₂} (relative even
// when Δ2 is 10⁻⁸⁰). ok = false when it cannot certify within its limits
// (or stop says so); the caller then uses another method.
func slowModesGraphSensitivity(g *laplacian.Graph, tau, alpha float64, s Result, maxBlock int, stop func() bool) (Result, bool) {
	n := g.N()
	comps, _ := g.Components()
	dim := n - comps // L's rank
	if n > slowModesLimit || dim < 1 {
		return s, false
	}
	B := expm.LambdaMaxBound(g)
	resTol := 1e-13 * B
	span := 25 / tau // modes up to λ₂ + span: e^{−τ·span} = 1.4·10⁻¹¹
	p := min(dim, 48)
	var x []float64
	p0 := 0
	for attempt := 0; attempt < 8; attempt++ {
		q, theta, conv := lowModes(g, p, 3*p/4, span, x, p0, resTol, 60, stop)
		if stop() {
			return s, false
		}
		// The first converged Ritz value past λ₂ + span; then the widest gap
		// in the next few, so that the factorization has room.
		k := -1
		for i := 1; i < conv; i++ {
			if theta[i] >= theta[0]+span {
				k = i
				break
			}
		}
		full := p == dim && conv == dim
		if k < 0 && !full {
			if p == dim || p >= maxBlock || conv < p/2 {
				return s, false
			}
			// The spectrum's density so far says how many modes the span
			// holds; too many and the other methods are the better choice.
			est := modesBelow(theta, conv, span, 0)
			if est+cutRoom > 0.75*float64(maxBlock) {
				return s, false
			}
			// The next block is sized for the estimate, not doubled; 3/4
			// of a block converges.
			x, p0 = q, p
			p = min(dim, maxBlock, max(2*p, slowModesBlock(est)))
			continue
		}
		m, mu := dim, math.Inf(1)
		if k >= 0 {
			m = k
			for i := k + 1; i < min(conv, k+32); i++ {
				if theta[i]-theta[i-1] > theta[m]-theta[m-1] {
					m = i
				}
			}
			mu = theta[m-1] + (theta[m]-theta[m-1])/2
		}
		qm := q
		if m < p {
			qm = make([]float64, n*m)
			for i := 0; i < n; i++ {
				copy(qm[i*m:i*m+m], q[i*p:i*p+m])
			}
		}
		muCert := math.Inf(1)
		if m < dim {
			var ok bool
			if muCert, ok = countCertificate(g, qm, m, mu, stop); !ok {
				return s, false
			}
		}
		up, lo, edge, ok := modeBrackets(g, newModeBasis(g, qm, m, theta[:m]), tau, muCert)
		if !ok {
			return s, false
		}
		s.Delta2 = math.Max(roundUpDelta(alpha*up), math.SmallestNonzeroFloat64) // never 0: Δ2 > 0 on an edge
		s.Slack = math.Max(0, s.Delta2-roundDownDelta(alpha*lo))
		s.Edge = edge
		s.Exact = true
		s.Method = "slow-modes"
		s.Kappa2 = math.NaN() // not computed (only the slow end of the spectrum is)
		return s, true
	}
	return s, false
}

// jensenFloor is the largest Jensen lower bound on q_e over the edges,
// 2e^{−τ(d_i+d_j+2w)} (docs/derivations.md §2.3): a proven lower bound on
// (Δ2/α)².
func jensenFloor(g *laplacian.Graph, tau float64) float64 {
	best := 0.0
	g.ForEachEdge(func(i, j int, w float64) {
		best = math.Max(best, 2*math.Exp(-tau*(g.Degree(i)+g.Degree(j)+2*w)))
	})
	return best * roundDown
}

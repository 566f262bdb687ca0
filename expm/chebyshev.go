package expm

import (
	"math"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Chebyshev applies a polynomial p_K(L) ≈ exp(−τL) to blocks of vectors
// with a certified bound on ‖exp(−τL) − p_K(L)‖₂.
//
// With B ≥ λ_max(L) certified (LambdaMaxBound), a = τB/2 and
// L̃ = (2/B)L − I (spectrum in [−1, 1]),
//
//	exp(−τL) = Σ_{k≥0} c_k T_k(L̃),  c_0 = e^{−a}I_0(a),  c_k = 2(−1)^k e^{−a}I_k(a),
//
// from the generating function e^{z cos θ} = I_0(z) + 2Σ I_k(z) cos kθ
// (docs/derivations.md §1.1). Apply runs the three-term recurrence
// T_{k+1} = 2L̃T_k − T_{k−1}: one sparse product per degree, fused with the
// accumulation of c_k T_k.
//
// The error bound is a truncation bound — the coefficients' own tail
// Σ_{k>K} |c_k| (chebyshevTails, widened for their rounding), or the
// Bernstein-ellipse bound ChebyshevTailBound(a, K) where smaller — plus a
// floating-point margin derived by the
// standard forward analysis of the recurrence: with δ the rounding of one
// step relative to ‖x‖, δ ≤ 4γ_{Δ+5} + 3γ_3 (Δ = longest row,
// γ_m = mu/(1−mu), using ‖|L|‖₂ ≤ B and |α| = 4/B, |β| = 2, |γ| = 1 in
// T_{k+1} = αLT_k + βT_k + γT_{k−1}), the error injected at step j reaches T_k through
// U_{k−1−j}(L̃) with ‖U_m‖ ≤ m+1, so the rounding in Σc_kT_k is at most
//
//	1.01·[δ·Σ_k |c_k|·k(k+1)/2 + (γ_{K+2} + θ)·Σ_k |c_k|] + τε_D·e^{τε_D}
//
// where θ = 4(k₀+2)u bounds the relative error of the Bessel coefficients
// (heuristic: Miller's algorithm is not re-analysed here; tests check the
// coefficients against 60-digit series) and ε_D = γ_Δ·d_max is the rounding
// of the weighted degrees (0 for unweighted graphs), a perturbation of L
// handled by Duhamel's formula. The factor 1.01 covers ‖T̂_k x‖ ≤ 1.01‖x‖.
// Everything except θ is a proof; θ is conservative by orders of magnitude.
// The coefficients' own tail trusts them the same way, with room to spare:
// it would fail only if they were off by a relative 10⁻⁶ (measured: 4·10⁻¹⁵).
//
// A Chebyshev is safe for concurrent use by multiple goroutines.
type Chebyshev struct {
	g *laplacian.Graph
	// m is the structure the kernels run on: g's, or g's in a local order
	// (localOrder), position p holding node perm[p].
	m       *csr
	perm    []int32
	n       int
	tau, b  float64
	a       float64
	coef    []float64 // c_0..c_K with signs
	tail    float64
	margin  float64
	splits  []int // row ranges for the workers, balanced by nonzeros
	pool    sync.Pool
	workers int
}

// NewChebyshev returns the Chebyshev action for exp(−τL), L = op's
// Laplacian, with the smallest degree K such that
// truncation bound (chebyshevTails) + rounding margin ≤ tol. It returns a
// *ParamError for τ not positive and finite or tol outside (0, 1), and a
// *ToleranceError when the rounding margin alone exceeds tol.
// A graph without edges (B = 0) gives K = 0 and the identity, exactly.
func NewChebyshev(op *laplacian.Operator, tau, tol float64) (*Chebyshev, error) {
	return newChebyshev(op, tau, tol, true)
}

// newChebyshev is NewChebyshev, run in Cuthill–McKee order where that
// places neighbours nearer (localOrder) when reorder, else in g's own.
func newChebyshev(op *laplacian.Operator, tau, tol float64, reorder bool) (*Chebyshev, error) {
	if err := checkTau(tau); err != nil {
		return nil, err
	}
	if err := checkTol(tol); err != nil {
		return nil, err
	}
	g := op.Graph()
	B, maxRow := lambdaMaxBound(g)
	c := &Chebyshev{g: g, n: g.N(), tau: tau, b: B, a: tau * B / 2}
	if reorder {
		c.m, c.perm = localOrder(g)
	} else {
		c.m = graphCSR(g)
	}
	c.workers = runtime.GOMAXPROCS(0)
	c.splits = rowSplits(c.m, c.workers)
	if B == 0 {
		c.coef = []float64{1}
		return c, nil
	}
	if math.IsInf(c.a, 0) {
		return nil, &ParamError{Name: "tau", Value: tau, Want: "small enough that τ·λ_max is finite"}
	}
	// The coefficients far enough that the ellipse bound is below tol/1000,
	// the degree bound from the truncation alone (their own tail), then the
	// margin on top.
	k2 := 0
	for ChebyshevTailBound(c.a, k2) > tol*1e-3 {
		k2++
	}
	k2 += 4
	ie := BesselIe(c.a, k2)
	tails := chebyshevTails(c.a, ie)
	k1 := 0
	for tails[k1] > tol {
		k1++
	}
	epsD := 0.0
	if !g.Unweighted() {
		epsD = gamma(maxRow) * g.MaxDegree()
	}
	degreeTerm := tau * epsD * math.Exp(tau*epsD)
	delta := 4*gamma(maxRow+5) + 3*gamma(3)
	k0 := BesselStartIndex(c.a, k2)
	if c.a < 1 {
		k0 = 64
	}
	theta := 4 * float64(k0+2) * unitRoundoff
	var s, c1 float64
	floor := math.Inf(1)
	for k := 0; k <= k2; k++ {
		ck := ie[k]
		if k > 0 {
			ck *= 2
		}
		s += ck * float64(k) * float64(k+1) / 2
		c1 += ck
		if k < k1 {
			continue
		}
		m := 1.01*(delta*s+(gamma(k+2)+theta)*c1) + degreeTerm
		if k == k1 {
			floor = m
		}
		t := tails[k]
		if t+m <= tol {
			c.coef = make([]float64, k+1)
			for j := range c.coef {
				c.coef[j] = ie[j]
				if j > 0 {
					c.coef[j] *= 2
				}
				if j%2 == 1 {
					c.coef[j] = -c.coef[j]
				}
			}
			c.tail, c.margin = t, m
			return c, nil
		}
	}
	return nil, &ToleranceError{Tol: tol, Floor: floor}
}

// gamma returns γ_m = m·u/(1 − m·u), the classical rounding constant.
func gamma(m int) float64 {
	mu := float64(m) * unitRoundoff
	return mu / (1 - mu)
}

// WithWorkers returns a copy of c that uses at most w goroutines per
// product (w < 1 means 1). NewChebyshev uses GOMAXPROCS. Results are
// bitwise identical for every w: each row is computed by one goroutine in
// the same order.
func (c *Chebyshev) WithWorkers(w int) *Chebyshev {
	w = max(w, 1)
	return &Chebyshev{g: c.g, m: c.m, perm: c.perm, n: c.n, tau: c.tau, b: c.b, a: c.a, coef: c.coef,
		tail: c.tail, margin: c.margin, splits: rowSplits(c.m, w), workers: w}
}

// Degree returns K, the degree of the polynomial.
func (c *Chebyshev) Degree() int { return len(c.coef) - 1 }

// ErrorBound returns a certified bound on ‖exp(−τL) − p̂_K(L)‖₂, the
// truncation bound plus the rounding margin: for every block,
// ‖Apply(X)_col − exp(−τL)X_col‖₂ ≤ ErrorBound()·‖X_col‖₂ per column.
func (c *Chebyshev) ErrorBound() float64 { return c.tail + c.margin }

// TruncationBound returns the exact-arithmetic part of ErrorBound: the
// truncation bound at K (chebyshevTails).
func (c *Chebyshev) TruncationBound() float64 { return c.tail }

// Tau returns τ.
func (c *Chebyshev) Tau() float64 { return c.tau }

// B returns the certified bound B ≥ λ_max(L) used to scale the spectrum.
func (c *Chebyshev) B() float64 { return c.b }

// Method returns Sparse.
func (c *Chebyshev) Method() Method { return Sparse }

// N returns the dimension n.
func (c *Chebyshev) N() int { return c.n }

// Coefficients returns a copy of c_0..c_K (signed).
func (c *Chebyshev) Coefficients() []float64 { return append([]float64(nil), c.coef...) }

// Apply sets dst = p_K(L)·X for a row-major n×b block X (X[i*b+c] is
// entry i of column c). It panics if b < 1, a length differs from n·b, or
// dst and x overlap.
func (c *Chebyshev) Apply(dst, x []float64, b int) {
	n := c.n
	if b < 1 || len(dst) != n*b || len(x) != n*b {
		panic("expm: Chebyshev.Apply length mismatch")
	}
	if n > 0 && &dst[0] == &x[0] {
		panic("expm: Chebyshev.Apply dst aliases x")
	}
	if c.Degree() == 0 {
		c0 := c.coef[0]
		for i, v := range x {
			dst[i] = c0 * v
		}
		return
	}
	if c.perm == nil {
		c.apply(dst, x, b)
		return
	}
	// In the kernels' order: the block in, the result out.
	bufp := c.scratch(2 * n * b)
	defer c.pool.Put(bufp)
	xp, dp := (*bufp)[:n*b], (*bufp)[n*b:]
	gatherRows(xp, x, c.perm, b)
	c.apply(dp, xp, b)
	scatterRows(dst, dp, c.perm, b)
}

// apply is Apply in the kernels' order (c.m), for K ≥ 1.
func (c *Chebyshev) apply(dst, x []float64, b int) {
	n, K := c.n, c.Degree()
	bufp := c.scratch(2 * n * b)
	defer c.pool.Put(bufp)
	u, v := (*bufp)[:n*b], (*bufp)[n*b:]
	s := 2 / c.b
	// T_1 = L̃x = (2/B)Lx − x;  dst = c_0 x + c_1 T_1.
	c.step(u, x, nil, dst, b, s, -1, 0, c.coef[1], c.coef[0])
	prev, cur := x, u
	for k := 1; k < K; k++ {
		// T_{k+1} = (4/B)L T_k − 2T_k − T_{k−1} overwrites T_{k−1} in place
		// (row i reads z_i before writing out_i); dst += c_{k+1} T_{k+1}.
		out := prev
		if k == 1 {
			out = v // never overwrite the caller's x
		}
		c.step(out, cur, prev, dst, b, 2*s, -2, -1, c.coef[k+1], 0)
		prev, cur = cur, out
	}
}

func (c *Chebyshev) scratch(size int) *[]float64 {
	if p, ok := c.pool.Get().(*[]float64); ok && cap(*p) >= size {
		*p = (*p)[:size]
		return p
	}
	buf := make([]float64, size)
	return &buf
}

// step computes out = α·L·x + β·x + γ·z (z may be nil) and, when c0 == 0,
// acc += ck·out, otherwise acc = c0·x + ck·out (the first step).
func (c *Chebyshev) step(out, x, z, acc []float64, b int, alpha, beta, gam, ck, c0 float64) {
	run := func(lo, hi int) {
		if b == 1 {
			c.rows1(lo, hi, out, x, z, acc, alpha, beta, gam, ck, c0)
		} else {
			c.rowsB(lo, hi, out, x, z, acc, b, alpha, beta, gam, ck, c0)
		}
	}
	if len(c.splits) <= 2 {
		run(0, c.n)
		return
	}
	var wg sync.WaitGroup
	for w := 1; w+1 < len(c.splits); w++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			run(lo, hi)
		}(c.splits[w], c.splits[w+1])
	}
	run(c.splits[0], c.splits[1])
	wg.Wait()
}

// rows1 is the b = 1 kernel.
func (c *Chebyshev) rows1(lo, hi int, out, x, z, acc []float64, alpha, beta, gam, ck, c0 float64) {
	m := c.m
	deg := m.deg[:len(x)]
	out = out[:len(x)]
	acc = acc[:len(x)]
	for i := lo; i < hi; i++ {
		cols, ws := m.neighbors(i)
		xi := x[i]
		var s float64
		if ws == nil {
			var s0, s1 float64
			p := 0
			for ; p+1 < len(cols); p += 2 {
				s0 += x[cols[p]]
				s1 += x[cols[p+1]]
			}
			if p < len(cols) {
				s0 += x[cols[p]]
			}
			s = deg[i]*xi - (s0 + s1)
		} else {
			s = deg[i] * xi
			for p, j := range cols {
				s -= ws[p] * x[j]
			}
		}
		v := alpha*s + beta*xi
		if z != nil {
			v += gam * z[i]
		}
		out[i] = v
		if c0 != 0 {
			acc[i] = c0*xi + ck*v
		} else {
			acc[i] += ck * v
		}
	}
}

// rowsB is the block kernel: columns in chunks of eight, in AVX2 where the
// processor has it (rows8), else held in scalar accumulators (one
// neighbour row segment of 64 bytes per load, one bounds check per
// neighbour and chunk; eight measured 1.2–1.9× faster than four at
// b = 16–32 on an LFR graph of 2·10⁴ nodes), then the rest.
func (c *Chebyshev) rowsB(lo, hi int, out, x, z, acc []float64, b int, alpha, beta, gam, ck, c0 float64) {
	m := c.m
	deg := m.deg
	start := 0
	if rows8(m, lo, hi, out, x, z, acc, b, b/8, alpha, beta, gam, ck, c0) {
		start = b / 8 * 8
		if start == b {
			return
		}
	}
	var tmp [8]float64
	for i := lo; i < hi; i++ {
		cols, ws := m.neighbors(i)
		d := deg[i]
		for k0 := start; k0 < b; {
			w := min(b-k0, 8)
			if w < 8 {
				w = min(w, 4)
			}
			base := i*b + k0
			xi := x[base : base+w : base+w]
			switch {
			case w == 8 && ws == nil:
				tmp = sum8(x, cols, b, k0, d, xi)
			case w == 8:
				tmp = sum8Weighted(x, cols, ws, b, k0, d, xi)
			case w == 4 && ws == nil:
				t := sum4(x, cols, b, k0, d, xi)
				copy(tmp[:4], t[:])
			default:
				sumNarrow(&tmp, x, cols, ws, b, k0, w, d, xi)
			}
			oi := out[base : base+w : base+w]
			ai := acc[base : base+w : base+w]
			var zi []float64
			if z != nil {
				zi = z[base : base+w : base+w]
			}
			combineRow(oi, ai, xi, zi, tmp[:w], alpha, beta, gam, ck, c0)
			k0 += w
		}
	}
}

// sumNarrow is sum8 (weighted when ws is not nil) for w < 8 columns,
// into tmp[:w].
func sumNarrow(tmp *[8]float64, x []float64, cols []int32, ws []float64, b, k0, w int, d float64, xi []float64) {
	for k := 0; k < w; k++ {
		tmp[k] = d * xi[k]
	}
	for p, j := range cols {
		off := int(j)*b + k0
		q := x[off : off+w : off+w]
		wp := 1.0
		if ws != nil {
			wp = ws[p]
		}
		for k := range q {
			tmp[k] -= wp * q[k]
		}
	}
}

// combineRow finishes a row segment of rowsB from the Laplacian product
// lx: out = α·lx + β·x (+ γ·z when z is not nil) and acc = c0·x + ck·out
// when c0 ≠ 0, else acc += ck·out.
func combineRow(oi, ai, xi, zi, lx []float64, alpha, beta, gam, ck, c0 float64) {
	for k := range lx {
		v := alpha*lx[k] + beta*xi[k]
		if zi != nil {
			v += gam * zi[k]
		}
		oi[k] = v
		if c0 != 0 {
			ai[k] = c0*xi[k] + ck*v
		} else {
			ai[k] += ck * v
		}
	}
}

// sum4 is sum8 for four columns.
func sum4(x []float64, cols []int32, b, k0 int, d float64, xi []float64) [4]float64 {
	xi = xi[:4]
	a0, a1, a2, a3 := d*xi[0], d*xi[1], d*xi[2], d*xi[3]
	for _, j := range cols {
		off := int(j)*b + k0
		q := x[off : off+4 : off+4]
		a0 -= q[0]
		a1 -= q[1]
		a2 -= q[2]
		a3 -= q[3]
	}
	return [4]float64{a0, a1, a2, a3}
}

// sum8 returns d·x_i − Σ_j x_j over the neighbours j for the eight columns
// k0 … k0+7 (xi holds x_i's eight).
func sum8(x []float64, cols []int32, b, k0 int, d float64, xi []float64) [8]float64 {
	xi = xi[:8]
	a0, a1, a2, a3 := d*xi[0], d*xi[1], d*xi[2], d*xi[3]
	a4, a5, a6, a7 := d*xi[4], d*xi[5], d*xi[6], d*xi[7]
	for _, j := range cols {
		off := int(j)*b + k0
		q := x[off : off+8 : off+8]
		a0 -= q[0]
		a1 -= q[1]
		a2 -= q[2]
		a3 -= q[3]
		a4 -= q[4]
		a5 -= q[5]
		a6 -= q[6]
		a7 -= q[7]
	}
	return [8]float64{a0, a1, a2, a3, a4, a5, a6, a7}
}

// sum8Weighted is sum8 with edge weights: d·x_i − Σ_j w_ij·x_j.
func sum8Weighted(x []float64, cols []int32, ws []float64, b, k0 int, d float64, xi []float64) [8]float64 {
	xi = xi[:8]
	ws = ws[:len(cols)]
	a0, a1, a2, a3 := d*xi[0], d*xi[1], d*xi[2], d*xi[3]
	a4, a5, a6, a7 := d*xi[4], d*xi[5], d*xi[6], d*xi[7]
	for p, j := range cols {
		off := int(j)*b + k0
		q := x[off : off+8 : off+8]
		wp := ws[p]
		a0 -= wp * q[0]
		a1 -= wp * q[1]
		a2 -= wp * q[2]
		a3 -= wp * q[3]
		a4 -= wp * q[4]
		a5 -= wp * q[5]
		a6 -= wp * q[6]
		a7 -= wp * q[7]
	}
	return [8]float64{a0, a1, a2, a3, a4, a5, a6, a7}
}

// rowSplits splits [0, n) into up to w contiguous ranges of roughly equal
// nonzero count; small graphs get a single range.
func rowSplits(m *csr, w int) []int {
	n := m.n()
	total := int64(n) + int64(len(m.col))
	if w <= 1 || total < 1<<15 {
		return []int{0, n}
	}
	splits := []int{0}
	var acc int64
	part := 1
	for i := 0; i < n; i++ {
		acc += m.rowPtr[i+1] - m.rowPtr[i] + 1
		if part < w && acc >= total*int64(part)/int64(w) {
			splits = append(splits, i+1)
			part++
		}
	}
	if splits[len(splits)-1] != n {
		splits = append(splits, n)
	}
	return splits
}

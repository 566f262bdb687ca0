package sensitivity

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// panelsLimit is the largest graph the panel method takes: it stores all
// n columns of the polynomial (8n² bytes) and, when it shifts, factors a
// dense n×n matrix for the certificate of the shift.
const panelsLimit = 5000

// panelPlan is the polynomial of the panel method (docs/derivations.md
// §2.9): p_K ≈ g(x) = e^{−τ(x−ℓ)} on [ℓ, B], applied to the columns of
// the projector P onto the complement of L's null space (ℓ > 0) or to the
// unit columns (ℓ = 0), with colErr ≥ ‖ŷ_c − g(L)x_c‖ for every computed
// column ŷ_c, truncation included.
type panelPlan struct {
	B, ell float64 // ℓ: a proven lower bound on every eigenvalue of L off its null space (0: no shift)
	lam2   float64 // the estimate of λ₂ that chose the shift and the tolerance (not trusted)
	K      int
	coef   []float64
	colErr float64
	tail   float64
}

// panelTarget is the absolute error the panel method aims at in the
// shifted units (relative to e^{−τℓ}), times e^{−τ(λ̂₂−ℓ)}: 10⁻⁸ of the
// slowest mode's decay, so that the bracket is exact (10⁻⁶ relative) as
// long as Δ2 is at least 1 % of e^{−τλ₂} (it is 16 % on pa:n=3000,m=3 at τ = 20).
const panelTarget = 1e-8

// lowSpectrum estimates the lowest eigenvalues of L off its null space:
// the Ritz values of 16 filtered vectors, the first conv of them
// converged (not trusted; they choose the shift, the tolerance and the
// method).
func lowSpectrum(g *laplacian.Graph, stop func() bool) ([]float64, int) {
	comps, _ := g.Components()
	dim := g.N() - comps
	if dim < 1 {
		return []float64{0}, 0
	}
	B := expm.LambdaMaxBound(g)
	_, theta, conv := lowModes(g, min(dim, 16), min(dim, 12), math.Inf(1), nil, 0, 1e-9*B, 40, stop)
	return theta, conv
}

// newPanelPlan builds the polynomial for τ on g. With shift, it certifies
// ℓ (countCertificate with no modes: L − μI plus the component indicators
// factors, so no eigenvalue off the null space lies below μ'); lam2 is the
// estimate of λ₂ that places μ. It returns ok = false when stopped.
func newPanelPlan(g *laplacian.Graph, tau, lam2 float64, shift bool, stop func() bool) (panelPlan, bool) {
	p := panelPlan{B: spectralRadiusBound(g), lam2: lam2}
	if shift {
		for _, mu := range []float64{lam2 * (1 - 1e-6), lam2 * 0.9, lam2 * 0.5} {
			if mu <= 0 || tau*mu > 600 {
				continue
			}
			if ell, ok := countCertificate(g, nil, 0, mu, stop); ok && ell > 0 {
				p.ell = ell
				break
			}
			if stop() {
				return p, false
			}
		}
	}
	p.setDegree(g, tau)
	return p, true
}

// setDegree chooses K for the target error and bounds the error of a
// computed column (docs/derivations.md §2.9).
func (p *panelPlan) setDegree(g *laplacian.Graph, tau float64) {
	width := p.B - p.ell
	a := tau * width / 2
	tol := panelTarget / 4 * math.Exp(-tau*math.Max(p.lam2-p.ell, 0))
	tol = math.Max(tol, targetFloor)
	p.K = chebDegree(a, tol)
	p.tail = expm.ChebyshevTail(a, p.K)
	p.coef = chebCoefficients(a, p.K)
	p.colErr = p.roundingBound(g, a) + p.tail
}

// roundingBound bounds the floating-point error of a computed column
// against the exact p_K(L)x_c. An error δ_j injected into T_j reaches T_k
// as U_{k−j}(L̃)δ_j (off the null space, ‖U_m‖ ≤ m+1; on it the exact
// projection removes it at the next step), so ‖e_k‖ ≤ Σ_{j≤k}(k−j+1)δ_j,
// with δ_j the rounding of one step:
//
//	γ_{w+5}(α‖|L|‖V_{j−1} + |β|V_{j−1} + V_{j−2}) + α ε_D V_{j−1}
//	  + (γ_{n+1}(1+u) + u)·‖ŵ‖                     (the projection, ℓ > 0)
//
// (α = 4/(B−ℓ), β = −2(B+ℓ)/(B−ℓ), ‖|L|‖ ≤ B, ε_D = γ_w d_max the rounding
// of the weighted degrees, V_j ≥ ‖T̂_j x_c‖). The sum Σ c_k T̂_k adds
// γ_{K+2} Σ|c_k|V_k, the Bessel coefficients θ Σ|c_k|V_k (the same
// allowance as expm.NewChebyshev: Miller's recurrence is not re-analysed).
func (p *panelPlan) roundingBound(g *laplacian.Graph, a float64) float64 {
	u := roundoffU
	n := g.N()
	wmax := 0
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		wmax = max(wmax, len(c))
	}
	width := p.B - p.ell
	alpha := 4 / width
	beta := 2 * (p.B + p.ell) / width
	epsD := 0.0
	if !g.Unweighted() {
		epsD = highamGamma(wmax) * g.MaxDegree()
	}
	gw := highamGamma(wmax + 5)
	proj := 0.0
	if p.ell > 0 {
		proj = highamGamma(n+1)*(1+u) + u
	}
	k0 := expm.BesselStartIndex(a, p.K)
	if a < 1 {
		k0 = 64
	}
	theta := 4 * float64(k0+2) * u
	local := func(v1, v2 float64) float64 {
		w := beta*v1 + v2 // ‖ŵ‖ before the projection: ‖2L̃‖ ≤ 2(B+ℓ)/(B−ℓ) on the whole space
		return (gw*(alpha*p.B*v1+beta*v1+v2)+alpha*epsD*v1+proj*w)*1.01 + 0
	}
	// e_k = (k+1)·S1 − S2 with S1 = Σ_{j≤k} δ_j, S2 = Σ_{j≤k} j δ_j.
	S1, S2 := 2*u, 0.0 // δ_0: the start vector x_c − 1_C/|C| rounded
	vPrev, v := 0.0, 1+2*u
	errSum, vSum := 2*u*math.Abs(p.coef[0]), math.Abs(p.coef[0])*v
	for k := 1; k <= p.K; k++ {
		var d float64
		if k == 1 {
			d = local(v/2, 0) // T_1 = L̃T_0: half the coefficients of a full step
		} else {
			d = local(v, vPrev)
		}
		S1 += d
		S2 += float64(k) * d
		e := float64(k+1)*S1 - S2
		vPrev, v = v, 1+e
		ck := math.Abs(p.coef[k])
		errSum += ck * e
		vSum += ck * v
	}
	return (errSum + (highamGamma(p.K+2)+theta)*vSum) * roundUp
}

// panelColumns computes all n columns ŷ_c ≈ g(L)x_c, stored column-major
// (column c at f[c*n:]), panel by panel (16 columns, the width of the
// AVX2 kernel), one panel per worker at a time. It returns false when
// stopped.
func panelColumns(g *laplacian.Graph, p panelPlan, stop func() bool) ([]float64, bool) {
	const b = columnBlock
	n := g.N()
	f := make([]float64, n*n)
	comps, label := g.Components()
	size := make([]float64, comps)
	for _, c := range label {
		size[c]++
	}
	panels := (n + b - 1) / b
	var next atomic.Int64
	var stopped atomic.Bool
	workers := min(runtime.GOMAXPROCS(0), panels)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newPanelWorker(g, p, label, size)
			for {
				pi := int(next.Add(1) - 1)
				if pi >= panels || stopped.Load() {
					return
				}
				if !w.panel(pi*b, min(pi*b+b, n), f, stop) {
					stopped.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	return f, !stopped.Load()
}

// panelWorker holds one worker's panel buffers (row-major n×16).
type panelWorker struct {
	g         *laplacian.Graph
	p         panelPlan
	label     []int32
	size      []float64
	t0, t1    []float64
	acc, sums []float64
	rowPtr    []int64
	col       []int32
	w, deg    []float64
	a1, c1    float64 // T_1 = a1·L·T_0 + c1·T_0
	a2, c2    float64 // T_{k+1} = a2·L·T_k + c2·T_k − T_{k−1}
}

func newPanelWorker(g *laplacian.Graph, p panelPlan, label []int32, size []float64) *panelWorker {
	const b = columnBlock
	n := g.N()
	width := p.B - p.ell
	w := &panelWorker{g: g, p: p, label: label, size: size,
		t0: make([]float64, n*b), t1: make([]float64, n*b), acc: make([]float64, n*b), sums: make([]float64, len(size)*b),
		deg: g.Degrees(), a1: 2 / width, c1: -(p.B + p.ell) / width, a2: 4 / width, c2: -2 * (p.B + p.ell) / width}
	w.rowPtr, w.col, w.w = g.CSR()
	return w
}

// panel computes the columns lo..hi−1 into f; false when stopped.
func (w *panelWorker) panel(lo, hi int, f []float64, stop func() bool) bool {
	const b = columnBlock
	n := w.g.N()
	p := w.p
	t0, t1 := w.t0, w.t1
	w.start(lo, hi)
	for i, v := range t0 {
		w.acc[i] = p.coef[0] * v
	}
	if p.K >= 1 {
		kernelRows(t1, t0, nil, nil, w.rowPtr, w.col, w.w, w.deg, 0, n, w.a1, w.c1, 0)
		w.finish(t1, p.coef[1])
	}
	for k := 2; k <= p.K; k++ {
		if k%16 == 0 && stop() {
			return false
		}
		kernelRows(t0, t1, t0, nil, w.rowPtr, w.col, w.w, w.deg, 0, n, w.a2, w.c2, -1)
		t0, t1 = t1, t0
		w.finish(t1, p.coef[k])
	}
	for c := lo; c < hi; c++ {
		fc := f[c*n : c*n+n]
		for i := range fc {
			fc[i] = w.acc[i*b+c-lo]
		}
	}
	return true
}

// start sets t0 to the panel's start columns: e_c, or x_c = e_c − 1_C/|C|
// (P e_c, each entry rounded once) when shifting.
func (w *panelWorker) start(lo, hi int) {
	const b = columnBlock
	clear(w.t0)
	for c := lo; c < hi; c++ {
		w.t0[c*b+c-lo] = 1
	}
	if w.p.ell == 0 {
		return
	}
	for c := lo; c < hi; c++ {
		lc := w.label[c]
		inv := 1 / w.size[lc]
		for i, l := range w.label {
			if l == lc {
				w.t0[i*b+c-lo] -= inv
			}
		}
	}
}

// finish completes T̂_k in t: the projection off the null space (ℓ > 0;
// component means subtracted) fused with acc += c_k·T̂_k.
func (w *panelWorker) finish(t []float64, ck float64) {
	const b = columnBlock
	acc := w.acc
	if w.p.ell == 0 {
		for i, v := range t {
			acc[i] += ck * v
		}
		return
	}
	if len(w.size) == 1 {
		// Connected: one mean per column, in the AVX2 kernels.
		var s [b]float64
		colSums(t, &s)
		for k := range s {
			s[k] /= w.size[0]
		}
		centerAcc(t, acc, &s, ck)
		return
	}
	sums := w.sums
	clear(sums)
	for i, l := range w.label {
		s := sums[int(l)*b : int(l)*b+b]
		row := t[i*b : i*b+b]
		for k := range s {
			s[k] += row[k]
		}
	}
	for c, sz := range w.size {
		for k := 0; k < b; k++ {
			sums[c*b+k] /= sz
		}
	}
	for i, l := range w.label {
		s := sums[int(l)*b : int(l)*b+b]
		row := t[i*b : i*b+b]
		ai := acc[i*b : i*b+b]
		for k := range s {
			v := row[k] - s[k]
			row[k] = v
			ai[k] += ck * v
		}
	}
}

// panelBrackets brackets every edge's ‖exp(−τL)b_e‖ from the columns f:
// ‖g(L)b_e‖ is within 2·colErr of ‖ŷ_i − ŷ_j‖ (b_e = x_i − x_j), and
// exp(−τL)b_e = e^{−τℓ}g(L)b_e. It returns the largest upper end, its
// edge and the largest lower end.
func panelBrackets(g *laplacian.Graph, f []float64, p panelPlan, tau float64) (up, lo float64, edge [2]int) {
	n := g.N()
	gn := highamGamma(n + 4)
	scaleUp := math.Exp(-tau*p.ell) * roundUp
	scaleLo := math.Exp(-tau*p.ell) * roundDown
	e2 := 2 * p.colErr
	up, edge = -1, [2]int{-1, -1}
	g.ForEachEdge(func(i, j int, _ float64) {
		fi, fj := f[i*n:i*n+n], f[j*n:j*n+n]
		s := 0.0
		for r, v := range fi {
			d := v - fj[r]
			s += d * d
		}
		dn := math.Sqrt(s)
		hi := math.Nextafter((dn*(1+gn)+e2)*(1+4*roundoffU)*scaleUp, math.Inf(1))
		hi = math.Min(hi, math.Sqrt2)
		lw := math.Max(0, (dn*(1-gn)-e2)*(1-4*roundoffU)*scaleLo)
		if hi > up {
			up, edge = hi, [2]int{i, j}
		}
		lo = math.Max(lo, lw)
	})
	return up, lo, edge
}

// panelShift reports whether the panel method should shift by a certified
// ℓ ≈ λ₂: when the unshifted rounding and truncation error would exceed
// panelTarget of the slowest mode's decay e^{−τλ₂}.
func panelShift(g *laplacian.Graph, tau, lam2 float64) bool {
	p := panelPlan{B: spectralRadiusBound(g), lam2: lam2}
	p.setDegree(g, tau)
	return p.colErr > panelTarget*math.Exp(-tau*lam2)
}

// panelGraphSensitivity computes Δ2 from all n columns of a Chebyshev
// polynomial of L, computed in panels (the `panels` method,
// docs/derivations.md §2.9). At large τλ₂ it shifts by a certified lower
// bound ℓ on λ₂ so that its absolute error terms carry e^{−τℓ}. ok = false
// when stopped, too large or when the shift underflows.
func panelGraphSensitivity(g *laplacian.Graph, tau, alpha float64, s Result, stop func() bool) (Result, bool) {
	if g.N() > panelsLimit {
		return s, false
	}
	theta, _ := lowSpectrum(g, stop)
	lam2 := theta[0]
	if stop() {
		return s, false
	}
	p, ok := newPanelPlan(g, tau, lam2, panelShift(g, tau, lam2), stop)
	if !ok || tau*p.ell > 700 {
		return s, false
	}
	f, ok := panelColumns(g, p, stop)
	if !ok {
		return s, false
	}
	up, lo, edge := panelBrackets(g, f, p, tau)
	s.Delta2 = math.Max(roundUpDelta(alpha*up), math.SmallestNonzeroFloat64)
	s.Slack = math.Max(0, s.Delta2-roundDownDelta(alpha*lo))
	s.Edge = edge
	s.Exact = true
	s.Method = "chebyshev-panels"
	s.Kappa2 = math.NaN()
	return s, true
}

// panelChoice is Auto's choice between the slow modes and the panels on a
// graph where Δ2 may be tiny, with both methods' modelled cost.
type panelChoice struct {
	panels      panelCost
	modes       float64 // estimated eigenvalues below λ₂ + 25/τ (the slow modes' subspace)
	slowFirst   bool
	slowSeconds float64
	slowBytes   int64
}

// choosePanels models both methods from one estimate of the low spectrum
// (16 filtered vectors, timed): the slow modes run first when the modes
// they need (modesBelow, β = 1.5) fit 3/4 of the 256 Auto allows them and they are
// modelled at most 3/4 of the panels' time. Their model: the count
// certificate's Cholesky (timed, as for the panels) plus the subspace
// iteration, which costs the timed 16-vector estimate times (48 + p)/16
// for a first block of 48 and the block p it sizes (slowModesBlock; the
// filter steps, linear in the block, dominate at these sizes), times
// slowModesIterFactor.
func choosePanels(g *laplacian.Graph, tau float64, stop func() bool) panelChoice {
	n := g.N()
	t := time.Now()
	theta, conv := lowSpectrum(g, stop)
	est := time.Since(t).Seconds()
	var c panelChoice
	c.panels = planPanelsFrom(g, tau, theta[0], est)
	// Twelve converged values are too few to fit the exponent: the fit
	// said 266 where 122 modes are (pa:n=5000,m=3, τ = 100), the linear
	// extrapolation 59; β = 1.5 says 130.
	c.modes = modesBelow(theta, conv, 25/tau, 1.5)
	block, blocks := 48.0, 48.0
	if c.modes+cutRoom > 0.75*block {
		block = float64(slowModesBlock(math.Min(c.modes, 0.75*slowModesAutoBlock)))
		blocks += block
	}
	c.slowSeconds = choleskySeconds(n) + est*(blocks/16)*slowModesIterFactor
	c.slowBytes = int64(8*n*n) + int64(6*8*n)*int64(block) + g.Bytes()
	// Margins: a slow-modes attempt that needs more modes than estimated
	// fails after costing seconds, and both models are timed on a host
	// whose load changes between the dry run and the run.
	c.slowFirst = c.modes+cutRoom <= 0.75*slowModesAutoBlock && c.slowSeconds < 0.75*c.panels.seconds
	return c
}

// slowModesIterFactor scales the timed 16-vector estimate of the low
// spectrum to the slow modes' subspace iteration at the same block size
// (more passes, the Rayleigh–Ritz and the QR): with 0.6 the model was
// 2.3–2.6× below the CPU time on pa:n=3000 and 5 000, m = 3, at τ = 100
// (docs/derivations.md §2.3), whose wall time on two idle cores is about
// CPU/1.6.
const slowModesIterFactor = 1.0

// panelCost is the panel method's modelled cost on g at τ: the degree and
// shift it would use, and seconds from a timed probe on this graph (one
// panel step, the fastest of four, times K·panels/workers, the projection
// and accumulation counted by the same probe; the certificate's Cholesky
// timed at up to 700 nodes and scaled by n³).
type panelCost struct {
	K       int
	shift   bool
	lam2    float64
	seconds float64
	bytes   int64
}

func planPanels(g *laplacian.Graph, tau float64) panelCost {
	t0 := time.Now()
	theta, _ := lowSpectrum(g, func() bool { return false })
	return planPanelsFrom(g, tau, theta[0], time.Since(t0).Seconds())
}

// planPanelsFrom is planPanels with the estimate of λ₂ and its time given.
func planPanelsFrom(g *laplacian.Graph, tau, lam2, estSecs float64) panelCost {
	n := g.N()
	var c panelCost
	c.lam2 = lam2
	c.shift = panelShift(g, tau, lam2)
	p := panelPlan{B: spectralRadiusBound(g), lam2: lam2}
	if c.shift {
		p.ell = lam2 * (1 - 1e-6)
	}
	p.setDegree(g, tau)
	c.K = p.K
	step := panelStepSeconds(g, p.ell > 0)
	workers := float64(min(runtime.GOMAXPROCS(0), (n+columnBlock-1)/columnBlock))
	panels := float64((n + columnBlock - 1) / columnBlock)
	c.seconds = estSecs + float64(p.K)*step*math.Ceil(panels/workers)
	c.seconds += float64(g.NumEdges()) * float64(n) * 1e-9 // edge brackets: ~1 ns per entry
	c.bytes = int64(8*n*n) + int64(3*8*n*columnBlock)*int64(workers) + g.Bytes()
	if c.shift {
		c.seconds += choleskySeconds(n)
		c.bytes += int64(8 * n * n) // the certificate's factor, garbage by then but not yet returned to the system
	}
	return c
}

// panelStepSeconds times one panel step on g (kernel, projection,
// accumulation), single-threaded, the fastest of four.
func panelStepSeconds(g *laplacian.Graph, project bool) float64 {
	const b = columnBlock
	n := g.N()
	rowPtr, col, w := g.CSR()
	deg := g.Degrees()
	x := make([]float64, n*b)
	y := make([]float64, n*b)
	acc := make([]float64, n*b)
	for i := range x {
		x[i] = float64(i%7) * 0.1
	}
	best := math.Inf(1)
	for range 4 {
		t := time.Now()
		kernelRows(y, x, y, nil, rowPtr, col, w, deg, 0, n, 1e-3, -1, -1)
		passes := 1
		if project {
			passes = 2
		}
		for range passes {
			for i, v := range y {
				acc[i] += 0.5 * v
			}
		}
		best = math.Min(best, time.Since(t).Seconds())
	}
	return best
}

// choleskySeconds times the certificate's factorization on a dense SPD
// matrix of up to 700 rows and scales it by (n/n₀)³.
func choleskySeconds(n int) float64 {
	n0 := min(n, 700)
	a := make([]float64, n0*n0)
	for i := 0; i < n0; i++ {
		for j := 0; j < n0; j++ {
			a[i*n0+j] = 1 / float64(1+i+j)
		}
		a[i*n0+i] += float64(n0)
	}
	t := time.Now()
	choleskyStoppable(a, n0, func() bool { return false })
	r := float64(n) / float64(n0)
	return time.Since(t).Seconds() * r * r * r
}

// spectralRadiusBound returns a proven upper bound on ρ(Q), Q = D + W =
// |L|, hence on λ_max(L) and on ‖|L|‖₂: the smaller of
// expm.LambdaMaxBound and the Collatz–Wielandt bound max_i (Qx)_i/x_i for
// a positive x, here x after 64 power steps on Q from the degrees (each
// component normalised on its own; docs/derivations.md §2.9). Every term
// of (Qx)_i is non-negative, so its computed value is at most
// (1 + γ_{w+2}) times the exact one; the division adds u.
func spectralRadiusBound(g *laplacian.Graph) float64 {
	B := expm.LambdaMaxBound(g)
	n := g.N()
	comps, label := g.Components()
	deg := g.Degrees()
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = deg[i] + 1
	}
	mul := func(dst, v []float64) {
		for i := 0; i < n; i++ {
			cols, ws := g.Neighbors(i)
			s := deg[i] * v[i]
			for k, j := range cols {
				if ws != nil {
					s += ws[k] * v[j]
				} else {
					s += v[j]
				}
			}
			dst[i] = s
		}
	}
	mx := make([]float64, comps)
	for range 64 {
		mul(y, x)
		clear(mx)
		for i, v := range y {
			mx[label[i]] = math.Max(mx[label[i]], v)
		}
		for i, v := range y {
			if mx[label[i]] > 0 {
				x[i] = v / mx[label[i]]
			} else {
				x[i] = 1
			}
		}
	}
	wmax := 0
	for i := 0; i < n; i++ {
		if x[i] <= 0 || math.IsNaN(x[i]) {
			return B // not positive (underflow): no bound from it
		}
		c, _ := g.Neighbors(i)
		wmax = max(wmax, len(c))
	}
	mul(y, x)
	cw := 0.0
	for i := range y {
		cw = math.Max(cw, y[i]/x[i])
	}
	// The weighted degrees are sums of w terms themselves.
	cw *= (1 + highamGamma(2*wmax+4)) * roundUp
	return math.Min(B, cw)
}

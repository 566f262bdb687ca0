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
// long as Δ2 is at least 1 % of e^{−τλ₂}.
const panelTarget = 1e-8

// lambda2Estimate returns an estimate of the smallest eigenvalue of L off
// its null space (a Ritz value of a few filtered vectors; not trusted) and
// whether it converged.
func lambda2Estimate(g *laplacian.Graph, stop func() bool) (float64, bool) {
	comps, _ := g.Components()
	dim := g.N() - comps
	if dim < 1 {
		return 0, false
	}
	B := expm.LambdaMaxBound(g)
	_, theta, conv := lowModes(g, min(dim, 8), 1, nil, 0, 1e-9*B, 40, stop)
	return theta[0], conv >= 1
}

// newPanelPlan builds the polynomial for τ on g. With shift, it certifies
// ℓ (countCertificate with no modes: L − μI plus the component indicators
// factors, so no eigenvalue off the null space lies below μ'); lam2 is the
// estimate of λ₂ that places μ. It returns ok = false when stopped.
func newPanelPlan(g *laplacian.Graph, tau, lam2 float64, shift bool, stop func() bool) (panelPlan, bool) {
	p := panelPlan{B: expm.LambdaMaxBound(g), lam2: lam2}
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
	tol = math.Max(tol, 1e-15)
	p.K = chebDegree(a, tol)
	p.tail = expm.ChebyshevTailBound(a, p.K)
	ie := expm.BesselIe(a, p.K)
	p.coef = make([]float64, p.K+1)
	for k := range p.coef {
		c := 2 * ie[k]
		if k == 0 {
			c = ie[0]
		}
		if k%2 == 1 {
			c = -c
		}
		p.coef[k] = c
	}
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
	return (errSum + (highamGamma(p.K+2)+theta)*vSum) * (1 + 1e-12)
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
	rowPtr, col, w := g.CSR()
	deg := g.Degrees()
	width := p.B - p.ell
	a1, c1 := 2/width, -(p.B+p.ell)/width
	a2, c2 := 4/width, -2*(p.B+p.ell)/width
	panels := (n + b - 1) / b
	var next atomic.Int64
	var stopped atomic.Bool
	workers := min(runtime.GOMAXPROCS(0), panels)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := make([]float64, n*b)
			t1 := make([]float64, n*b)
			acc := make([]float64, n*b)
			sums := make([]float64, comps*b)
			project := func(t []float64) {
				if p.ell == 0 {
					return
				}
				clear(sums)
				for i := 0; i < n; i++ {
					s := sums[int(label[i])*b : int(label[i])*b+b]
					row := t[i*b : i*b+b]
					for k := range s {
						s[k] += row[k]
					}
				}
				for c := 0; c < comps; c++ {
					for k := 0; k < b; k++ {
						sums[c*b+k] /= size[c]
					}
				}
				for i := 0; i < n; i++ {
					s := sums[int(label[i])*b : int(label[i])*b+b]
					row := t[i*b : i*b+b]
					for k := range s {
						row[k] -= s[k]
					}
				}
			}
			accumulate := func(t []float64, ck float64) {
				for i, v := range t {
					acc[i] += ck * v
				}
			}
			for {
				pi := int(next.Add(1) - 1)
				if pi >= panels || stopped.Load() {
					return
				}
				lo := pi * b
				hi := min(lo+b, n)
				clear(t0)
				for c := lo; c < hi; c++ {
					t0[c*b+c-lo] = 1
				}
				if p.ell > 0 {
					// x_c = e_c − 1_C/|C|: P e_c, each entry rounded once.
					for c := lo; c < hi; c++ {
						lc := label[c]
						inv := 1 / size[lc]
						for i := 0; i < n; i++ {
							if label[i] == lc {
								t0[i*b+c-lo] -= inv
							}
						}
					}
				}
				for i, v := range t0 {
					acc[i] = p.coef[0] * v
				}
				if p.K >= 1 {
					kernelRows(t1, t0, nil, nil, rowPtr, col, w, deg, 0, n, a1, c1, 0)
					project(t1)
					accumulate(t1, p.coef[1])
				}
				for k := 2; k <= p.K; k++ {
					if k%16 == 0 && stop() {
						stopped.Store(true)
						return
					}
					kernelRows(t0, t1, t0, nil, rowPtr, col, w, deg, 0, n, a2, c2, -1)
					t0, t1 = t1, t0
					project(t1)
					accumulate(t1, p.coef[k])
				}
				for c := lo; c < hi; c++ {
					fc := f[c*n : c*n+n]
					for i := range fc {
						fc[i] = acc[i*b+c-lo]
					}
				}
			}
		}()
	}
	wg.Wait()
	return f, !stopped.Load()
}

// panelBrackets brackets every edge's ‖exp(−τL)b_e‖ from the columns f:
// ‖g(L)b_e‖ is within 2·colErr of ‖ŷ_i − ŷ_j‖ (b_e = x_i − x_j), and
// exp(−τL)b_e = e^{−τℓ}g(L)b_e. It returns the largest upper end, its
// edge and the largest lower end.
func panelBrackets(g *laplacian.Graph, f []float64, p panelPlan, tau float64) (up, lo float64, edge [2]int) {
	n := g.N()
	gn := highamGamma(n + 4)
	scaleUp := math.Exp(-tau*p.ell) * (1 + 1e-12)
	scaleLo := math.Exp(-tau*p.ell) * (1 - 1e-12)
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
	p := panelPlan{B: expm.LambdaMaxBound(g), lam2: lam2}
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
	lam2, _ := lambda2Estimate(g, stop)
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
	n := g.N()
	t0 := time.Now()
	lam2, _ := lambda2Estimate(g, func() bool { return false })
	estSecs := time.Since(t0).Seconds()
	var c panelCost
	c.lam2 = lam2
	c.shift = panelShift(g, tau, lam2)
	p := panelPlan{B: expm.LambdaMaxBound(g), lam2: lam2}
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
		c.bytes = max(c.bytes, int64(8*n*n)+g.Bytes())
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
			passes = 3
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

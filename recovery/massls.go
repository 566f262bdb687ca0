package recovery

import (
	"math"
	"sort"
)

// MassLS is mass-constrained non-negative least squares:
//
//	f̂ = argmin ½‖Mf − ỹ‖²  s.t.  f ≥ 0,  1ᵀf = K,   K = k·μ
//
// (k = Problem.Sources, 0 treated as 1; μ = Problem.Mass, default 1). The
// mass constraint is what makes the problem well posed on a
// mass-preserving heat kernel. It is solved by FISTA with adaptive
// restart (Beck & Teboulle 2009; O'Donoghue & Candès 2015) with step
// 1/s_max², projecting onto the scaled simplex by the sort-based method
// of Held, Wolfe & Crowder (1974) / Duchi et al. (2008). Ill-conditioning
// slows convergence of f but not of the fit; the iteration stops when the
// objective changes by less than 1e-12 relatively or after MaxIter.
// Spectral and dense models (not operator-only ones).
type MassLS struct {
	// MaxIter bounds the iterations. Default 2000.
	MaxIter int
}

// Name returns "massls".
func (MassLS) Name() string { return NameMassLS }

// Estimate solves the problem; see the type documentation.
func (e MassLS) Estimate(p *Problem) (*Estimate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	md := p.Model
	if md.op != nil {
		return nil, ErrOperatorOnly
	}
	maxIter := e.MaxIter
	if maxIter <= 0 {
		maxIter = 2000
	}
	n := md.n
	k := p.Sources
	if k < 1 {
		k = 1
	}
	K := float64(k) * p.mass()
	// The data-fit residual w and the gradient Mᵀw, in reduced
	// coordinates on spectral models (w = diag(s)Vᵀf − Uᵀỹ, gradient
	// V·diag(s)·w) and in full on dense ones.
	var b []float64
	var L float64
	if md.Spectral() {
		b = md.projectU(p.Y)
		for _, s := range md.s {
			L = math.Max(L, s*s)
		}
	} else {
		b = p.Y
		L = normSquared(md)
	}
	residual := func(f []float64) []float64 { return md.fitResidual(f, b) }
	gradient := md.fitGradient
	// Start from the best single location (matched filter), feasible.
	norms, _ := md.ColumnNorms2()
	c0 := make([]float64, n)
	md.ApplyT(c0, p.Y)
	best := 0
	for s := range c0 {
		if K*c0[s]-0.5*K*K*norms[s] > K*c0[best]-0.5*K*K*norms[best] {
			best = s
		}
	}
	x := make([]float64, n)
	x[best] = K
	yv := append([]float64(nil), x...)
	t := 1.0
	grad := make([]float64, n)
	obj := func(f []float64) (float64, []float64) {
		w := residual(f)
		return 0.5 * dot(w, w), w
	}
	prev, _ := obj(x)
	iters := 0
	xn := make([]float64, n)
	for iters = 1; iters <= maxIter; iters++ {
		_, w := obj(yv)
		gradient(grad, w)
		for j := range xn {
			xn[j] = yv[j] - grad[j]/L
		}
		projectSimplex(xn, K)
		cur, _ := obj(xn)
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		if cur > prev { // adaptive restart
			copy(yv, x)
			t = 1
			continue
		}
		for j := range yv {
			yv[j] = xn[j] + (t-1)/tn*(xn[j]-x[j])
		}
		copy(x, xn)
		t = tn
		if math.Abs(prev-cur) <= 1e-12*math.Max(cur, 1e-300) {
			break
		}
		prev = cur
	}
	est := &Estimate{F: x, Status: Solved, DualBound: math.NaN(), Gap: math.NaN(), Eta: math.NaN(),
		LogEvidence: math.NaN(), Iterations: iters}
	est.Residual = residualNorm(md, p.Y, x)
	est.Objective = est.Residual * est.Residual / (2 * p.Sigma * p.Sigma)
	return est, nil
}

// projectSimplex replaces v by its Euclidean projection onto
// {x ≥ 0, 1ᵀx = K}.
func projectSimplex(v []float64, K float64) {
	u := append([]float64(nil), v...)
	sort.Sort(sort.Reverse(sort.Float64Slice(u)))
	css := 0.0
	theta := 0.0
	for i, ui := range u {
		css += ui
		t := (css - K) / float64(i+1)
		if ui-t > 0 {
			theta = t
		}
	}
	for i := range v {
		v[i] = math.Max(0, v[i]-theta)
	}
}

// normSquared returns an upper estimate of ‖M‖₂² for a dense model by 50
// power iterations on MᵀM, enlarged by 1% (it only sets a step size).
func normSquared(md *Model) float64 {
	x := make([]float64, md.n)
	for i := range x {
		x[i] = 1 / math.Sqrt(float64(md.n))
	}
	y := make([]float64, md.m)
	lam := 0.0
	for it := 0; it < 50; it++ {
		md.Apply(y, x)
		md.ApplyT(x, y)
		lam = math.Sqrt(dot(x, x))
		if lam == 0 {
			return 1
		}
		for i := range x {
			x[i] /= lam
		}
	}
	return 1.01 * lam
}

// fitResidual returns MassLS's data-fit residual of f against b: w =
// diag(s)Vᵀf − b in reduced coordinates on spectral models (b = Uᵀỹ), else
// w = Mf − b.
func (md *Model) fitResidual(f, b []float64) []float64 {
	if md.Spectral() {
		z := md.reduce(f)
		for q := range z {
			z[q] = md.s[q]*z[q] - b[q]
		}
		return z
	}
	w := make([]float64, md.m)
	md.Apply(w, f)
	for q := range w {
		w[q] -= b[q]
	}
	return w
}

// fitGradient writes the gradient Mᵀw of a fitResidual w to dst:
// V·diag(s)·w on spectral models (w is scaled in place), else Mᵀw.
func (md *Model) fitGradient(dst, w []float64) {
	if md.Spectral() {
		for q := range w {
			w[q] *= md.s[q]
		}
		md.expandV(dst, w)
		return
	}
	md.ApplyT(dst, w)
}

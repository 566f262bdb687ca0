package recovery

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// BPDN is the paper's estimator, basis pursuit denoising with a box:
//
//	f̂ = argmin 1ᵀf  s.t.  ‖Mf − ỹ‖₂ ≤ η,  0 ≤ f ≤ 1
//
// (Gilbert & McMillan, Algorithm 1; η from Problem.Eta).
//
// Method: the solution is f(λ*) on the path of the box-constrained
// penalised problems min ½‖Mf − ỹ‖² + λ·1ᵀf over the box, at the λ* where
// ‖Mf(λ) − ỹ‖ = η (the KKT systems of the two problems coincide with dual
// variable u = r/λ*). The path is piecewise linear in λ; it is followed
// exactly from λ₀ = max_j (Mᵀỹ)_j (where f = 0) downwards, LARS-style
// (Efron et al. 2004; Osborne, Presnell & Turlach 2000), with events
// "enters", "hits 0", "hits 1", "leaves 1", and the final segment solved
// for ‖r‖ = η as a quadratic. On spectral models all work is in the
// reduced coordinates (r kept modes), with a QR solve of the free columns;
// on operator models (large graphs) it uses only the Chebyshev action
// (three actions per segment plus one per column that enters) and a
// Cholesky solve of the cached Gram matrix of the free columns — the
// certificate then holds for the Chebyshev operator, which differs from
// exp(−τL) by at most its ErrorBound in spectral norm.
//
// Certificate: for any u ∈ ℝᵐ, weak duality gives
//
//	g(u) = uᵀỹ − η‖u‖ + Σ_j min(0, 1 − (Mᵀu)_j) ≤ optimum,
//
// evaluated along u = t·r/‖r‖ (r = ỹ − Mf̂, exact at the optimum by KKT)
// and maximised exactly over t ≥ 0 (concave, piecewise linear). The
// reported DualBound is that maximum, Gap = 1ᵀf̂ − DualBound with f̂
// verified feasible. If g grows without bound along u (slope
// uᵀỹ − η‖u‖ − Σ_j max(0, (Mᵀu)_j) > 0) the problem is infeasible: for any
// f in the box, uᵀỹ = (Mᵀu)ᵀf + uᵀ(ỹ − Mf) ≤ Σ_j max(0,(Mᵀu)_j) + η‖u‖.
// If ‖ỹ‖ ≤ η, f = 0 is feasible with objective 0 = the lower bound:
// NoSource.
type BPDN struct {
	// Tol is the certified relative gap Gap/Objective to reach.
	// Default 1e-6.
	Tol float64
	// MaxSteps bounds the number of path segments. Default 20·n + 100.
	MaxSteps int
}

// Name returns "bpdn".
func (BPDN) Name() string { return NameBPDN }

// bpdnState holds the spectral data of a BPDN instance: columns
// a_j = s ⊙ V_j, b = Uᵀỹ, rho2 = ‖(I − UUᵀ)ỹ‖².
type bpdnState struct {
	md   *Model
	n, r int // r: length of reduced vectors (kept modes, or m on operator models)
	cols map[int][]float64
	gram map[[2]int]float64
	// QR workspace, reused across path segments.
	qrBuf, qrWork []float64
	b             []float64
	rho2          float64
	y2            float64 // ‖ỹ‖²
	eta           float64
}

func (st *bpdnState) col(j int) []float64 {
	if a, ok := st.cols[j]; ok {
		return a
	}
	var a []float64
	if d := st.md.dense; d != nil {
		a = make([]float64, st.r)
		for i := range a {
			a[i] = d[i*st.n+j]
		}
	} else if st.md.op != nil {
		// Operator model: the full column M e_j (one action), cached.
		e := make([]float64, st.n)
		e[j] = 1
		a = make([]float64, st.r)
		st.md.Apply(a, e)
	} else {
		r := st.r
		a = make([]float64, r)
		row := st.md.v[j*r : j*r+r]
		for k, x := range row {
			a[k] = st.md.s[k] * x
		}
	}
	if st.cols == nil {
		st.cols = make(map[int][]float64)
	}
	st.cols[j] = a
	return a
}

// residualOf returns w = b − A f (the reduced residual; on operator
// models the full residual ỹ − Mf).
func (st *bpdnState) residualOf(f []float64) []float64 {
	w := make([]float64, st.r)
	if !st.md.Spectral() {
		st.md.Apply(w, f)
		for k := range w {
			w[k] = st.b[k] - w[k]
		}
		return w
	}
	z := st.md.reduce(f)
	for k := range w {
		w[k] = st.b[k] - st.md.s[k]*z[k]
	}
	return w
}

// corr sets c = Aᵀw = Mᵀr.
func (st *bpdnState) corr(c, w []float64) {
	if !st.md.Spectral() {
		st.md.ApplyT(c, w)
		return
	}
	sw := make([]float64, st.r)
	for k := range sw {
		sw[k] = st.md.s[k] * w[k]
	}
	st.md.expandV(c, sw)
}

func dot(a, b []float64) float64 {
	t := 0.0
	for i := range a {
		t += a[i] * b[i]
	}
	return t
}

// Estimate solves the problem; see the type documentation.
func (e BPDN) Estimate(p *Problem) (*Estimate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	md := p.Model
	tol := e.Tol
	if !(tol > 0) {
		tol = 1e-6
	}
	n := md.n
	maxSteps := e.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 20*n + 100
	}
	st := &bpdnState{md: md, n: n, r: md.r, eta: p.EtaValue()}
	st.y2 = dot(p.Y, p.Y)
	if !md.Spectral() {
		st.r = md.m
		st.b = append([]float64(nil), p.Y...)
	} else {
		st.b = md.projectU(p.Y)
		st.rho2 = math.Max(0, st.y2-dot(st.b, st.b))
	}
	est := &Estimate{Eta: st.eta, Posterior: nil, LogEvidence: math.NaN()}
	f := make([]float64, n)
	if math.Sqrt(st.y2) <= st.eta {
		est.F = f
		est.Status = NoSource
		est.Residual = math.Sqrt(st.y2)
		est.Objective, est.DualBound, est.Gap = 0, 0, 0
		return est, nil
	}
	res := st.path(f, maxSteps)
	est.Iterations = res.steps
	w := st.residualOf(f)
	rn := math.Sqrt(dot(w, w) + st.rho2)
	c := make([]float64, n)
	st.corr(c, w)
	bound, unbounded := st.dualBound(w, c, rn)
	if unbounded {
		est.Status = Infeasible
		est.DualBound = math.Inf(1)
		est.Gap = math.NaN()
		est.Objective = math.NaN()
		est.Residual = rn
		return est, nil
	}
	if res.hitZero && rn > st.eta {
		// The path ended at λ = 0 without a ray certificate (numerical
		// trouble): there is neither a feasible point nor a proof of
		// infeasibility, so there is no estimate.
		return nil, &NotCertifiedError{Gap: math.Inf(1), Objective: math.NaN(), Tol: tol, Iterations: res.steps}
	}
	obj := 0.0
	for _, x := range f {
		obj += x
	}
	est.F = f
	est.Status = Solved
	est.Objective = obj
	est.Residual = rn
	est.DualBound = bound
	est.Gap = math.Max(0, obj-bound)
	if est.Gap > tol*obj {
		return est, &NotCertifiedError{Gap: est.Gap, Objective: obj, Tol: tol, Iterations: res.steps}
	}
	return est, nil
}

// dualBound maximises g(t·r/‖r‖) over t ≥ 0 given the reduced residual w,
// c = Mᵀr and ‖r‖. It reports unbounded when the slope at infinity is
// positive (an infeasibility certificate).
func (st *bpdnState) dualBound(w, c []float64, rn float64) (float64, bool) {
	if rn == 0 {
		return 0, false
	}
	// r̂ᵀỹ = (wᵀb + ρ²)/‖r‖.
	alpha := (dot(w, st.b)+st.rho2)/rn - st.eta
	var gam []float64
	sumg := 0.0
	for _, cj := range c {
		if g := cj / rn; g > 0 {
			gam = append(gam, g)
			sumg += g
		}
	}
	if alpha-sumg > 0 {
		return math.Inf(1), true
	}
	if alpha <= 0 {
		return 0, false
	}
	// Breakpoints t_j = 1/γ_j ascending = γ descending.
	sort.Sort(sort.Reverse(sort.Float64Slice(gam)))
	// h(t) = t·α − Σ_j max(0, tγ_j − 1); slope after passing breakpoint
	// j drops by γ_j. Walk until the slope turns non-positive.
	slope := alpha
	best := 0.0
	sumG, cnt := 0.0, 0.0 // Σγ and count over passed breakpoints
	for _, g := range gam {
		t := 1 / g
		h := t*alpha - (t*sumG - cnt)
		if h > best {
			best = h
		}
		slope -= g
		sumG += g
		cnt++
		if slope <= 0 {
			break
		}
	}
	return best, false
}

type pathResult struct {
	steps   int
	hitZero bool
}

// coordState is where a coordinate of f sits on the homotopy path.
type coordState int8

const (
	atZero  coordState = iota // f_j = 0
	isFree                    // 0 < f_j < 1, moving along the direction
	atUpper                   // f_j = 1 (the box)
)

// eventKind is what ends a segment of the homotopy path.
type eventKind int8

const (
	lambdaZero  eventKind = iota // λ reaches 0 before anything else
	freeToZero                   // a free coordinate decreases to 0
	freeToUpper                  // a free coordinate increases to 1
	enterFree                    // a zero coordinate's correlation rises to λ
	leaveUpper                   // an upper coordinate's correlation falls to λ
)

// event is the first event along a segment: its kind, the step length Δ
// at which it happens and the coordinate it concerns (−1 for lambdaZero).
type event struct {
	kind eventKind
	at   float64
	who  int
}

// homotopy is the state of the path: the coordinates' states, the free
// set F, coordinates barred from re-entering at once (tabu), the
// correlations c = Aᵀw, the residual w = b − Af and the level λ.
type homotopy struct {
	state   []coordState
	freeIdx []int
	tabu    map[int]bool
	c, w    []float64
	lambda  float64
}

// path follows the homotopy from f = 0 and leaves the solution in f.
// Each segment moves the free coordinates along d_F = G⁻¹1 until the
// residual reaches η (the solution) or the next event changes the free set.
func (st *bpdnState) path(f []float64, maxSteps int) pathResult {
	h := &homotopy{
		state: make([]coordState, st.n),
		tabu:  map[int]bool{},
		c:     make([]float64, st.n),
		w:     append([]float64(nil), st.b...), // b − Af at f = 0
	}
	st.corr(h.c, h.w)
	h.lambda = math.Inf(-1)
	for _, x := range h.c {
		h.lambda = math.Max(h.lambda, x)
	}
	if h.lambda <= 0 {
		return pathResult{hitZero: true}
	}
	ad := make([]float64, st.r) // A d
	e := make([]float64, st.n)  // Aᵀ A d
	for steps := 0; steps < maxSteps; steps++ {
		// Entering candidates at the start (c_j == λ) are events with Δ = 0.
		dF := st.direction(h.freeIdx)
		st.image(ad, h.freeIdx, dF)
		st.corr(e, ad)
		ev := h.nextEvent(f, dF, e)
		if t, ok := st.residualCrossing(h.w, ad); ok && t <= ev.at {
			st.advance(f, h.freeIdx, dF, t, h.w, ad)
			// Nudge forward within the segment until feasible.
			st.makeFeasible(f, h.freeIdx, dF, t, ev.at)
			return pathResult{steps: steps + 1}
		}
		st.advance(f, h.freeIdx, dF, ev.at, h.w, ad)
		h.lambda -= ev.at
		for j := range h.c {
			h.c[j] -= ev.at * e[j]
		}
		if ev.kind == lambdaZero {
			return pathResult{steps: steps + 1, hitZero: true}
		}
		st.apply(h, ev, f)
		// w and c were updated along the segment; recompute them exactly
		// every few segments to stop drift.
		if steps%8 == 7 {
			copy(h.w, st.residualOf(f))
			st.corr(h.c, h.w)
		}
		if h.lambda <= 0 {
			return pathResult{steps: steps + 1, hitZero: true}
		}
	}
	return pathResult{steps: maxSteps}
}

// image sets ad = A_F d_F.
func (st *bpdnState) image(ad []float64, freeIdx []int, dF []float64) {
	for k := range ad {
		ad[k] = 0
	}
	for i, j := range freeIdx {
		a := st.col(j)
		for k := range ad {
			ad[k] += dF[i] * a[k]
		}
	}
}

// nextEvent returns the first event along the direction d_F (with
// e = AᵀA d): a free coordinate reaching a bound of the box, a zero
// coordinate entering or an upper one leaving, else λ reaching 0.
func (h *homotopy) nextEvent(f, dF, e []float64) event {
	ev := event{kind: lambdaZero, at: h.lambda, who: -1}
	for i, j := range h.freeIdx {
		if dF[i] < 0 {
			if t := -f[j] / dF[i]; t < ev.at {
				ev = event{freeToZero, t, j}
			}
		} else if dF[i] > 0 {
			if t := (1 - f[j]) / dF[i]; t < ev.at {
				ev = event{freeToUpper, t, j}
			}
		}
	}
	for j, s := range h.state {
		switch s {
		case atZero:
			if h.tabu[j] {
				continue
			}
			if den := 1 - e[j]; den > 1e-14 {
				if t := max((h.lambda-h.c[j])/den, 0); t < ev.at {
					ev = event{enterFree, t, j}
				}
			}
		case atUpper:
			if den := e[j] - 1; den > 1e-14 {
				if t := max((h.c[j]-h.lambda)/den, 0); t < ev.at {
					ev = event{leaveUpper, t, j}
				}
			}
		}
	}
	return ev
}

// residualCrossing returns the smallest Δ ≥ 0 with
// ‖w − Δ·ad‖² + ρ² = η², the point where the segment reaches the BPDN
// constraint, and false when it never does.
func (st *bpdnState) residualCrossing(w, ad []float64) (float64, bool) {
	aa := dot(ad, ad)
	if aa <= 0 {
		return 0, false
	}
	wa, ww := dot(w, ad), dot(w, w)
	// aa·Δ² − 2wa·Δ + (ww + ρ² − η²) = 0, smallest root ≥ 0.
	cq := ww + st.rho2 - st.eta*st.eta
	disc := wa*wa - aa*cq
	if disc < 0 {
		return 0, false
	}
	if cq <= 0 {
		return 0, true
	}
	return (wa - math.Sqrt(disc)) / aa, true
}

// apply changes the free set by ev (any kind but lambdaZero). A
// coordinate whose entry would make the free columns singular is barred
// until the free set changes otherwise.
func (st *bpdnState) apply(h *homotopy, ev event, f []float64) {
	who := ev.who
	switch ev.kind {
	case freeToZero:
		f[who] = 0
		h.state[who] = atZero
		h.freeIdx = remove(h.freeIdx, who)
		h.tabu = map[int]bool{who: true}
	case freeToUpper:
		f[who] = 1
		h.state[who] = atUpper
		h.freeIdx = remove(h.freeIdx, who)
		h.tabu = map[int]bool{}
	case enterFree:
		trial := append(append([]int(nil), h.freeIdx...), who)
		if st.direction(trial) == nil {
			h.tabu[who] = true
		} else {
			h.state[who] = isFree
			h.freeIdx = trial
			h.tabu = map[int]bool{}
		}
	case leaveUpper:
		h.state[who] = isFree
		h.freeIdx = append(h.freeIdx, who)
		h.tabu = map[int]bool{}
	}
}

func remove(s []int, x int) []int {
	for i, v := range s {
		if v == x {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// advance moves f_F by t·d_F and w by −t·ad.
func (st *bpdnState) advance(f []float64, freeIdx []int, dF []float64, t float64, w, ad []float64) {
	if t == 0 {
		return
	}
	for i, j := range freeIdx {
		f[j] = math.Min(1, math.Max(0, f[j]+t*dF[i]))
	}
	for k := range w {
		w[k] -= t * ad[k]
	}
}

// makeFeasible nudges f further along the segment (up to Δ = limit from
// the segment start t0) until ‖Mf − ỹ‖ ≤ η holds in floating point.
func (st *bpdnState) makeFeasible(f []float64, freeIdx []int, dF []float64, t0, limit float64) {
	res := func() float64 {
		w := st.residualOf(f)
		return math.Sqrt(dot(w, w) + st.rho2)
	}
	if res() <= st.eta || len(freeIdx) == 0 {
		return
	}
	base := make([]float64, len(freeIdx))
	for i, j := range freeIdx {
		base[i] = f[j] - t0*dF[i]
	}
	step := math.Max(t0*1e-12, 1e-300)
	for it := 0; it < 200; it++ {
		t := math.Min(limit, t0+step)
		for i, j := range freeIdx {
			f[j] = math.Min(1, math.Max(0, base[i]+t*dF[i]))
		}
		if res() <= st.eta || t >= limit {
			return
		}
		step *= 2
	}
}

// direction solves (A_FᵀA_F) d = 1 by a QR factorisation of A_F. It returns
// nil when A_F is numerically rank deficient.
func (st *bpdnState) direction(freeIdx []int) []float64 {
	k := len(freeIdx)
	if k == 0 {
		return []float64{}
	}
	r := st.r
	if k > r {
		return nil
	}
	if st.md.op != nil {
		return st.directionGram(freeIdx)
	}
	// Householder QR (LAPACK Dgeqrf) of A_F in a reused buffer; R is the
	// upper triangle.
	if cap(st.qrBuf) < r*k {
		st.qrBuf = make([]float64, r*k)
	}
	buf := st.qrBuf[:r*k]
	for i, j := range freeIdx {
		a := st.col(j)
		for q := 0; q < r; q++ {
			buf[q*k+i] = a[q]
		}
	}
	A := blas64.General{Rows: r, Cols: k, Stride: k, Data: buf}
	tau := make([]float64, k)
	work := []float64{0}
	lapack64.Geqrf(A, tau, work, -1)
	if need := int(work[0]); len(st.qrWork) < need {
		st.qrWork = make([]float64, need)
	}
	lapack64.Geqrf(A, tau, st.qrWork, len(st.qrWork))
	R := func(i, j int) float64 { return buf[i*k+j] }
	maxd := 0.0
	for i := 0; i < k; i++ {
		maxd = math.Max(maxd, math.Abs(R(i, i)))
	}
	for i := 0; i < k; i++ {
		if math.Abs(R(i, i)) <= 1e-13*maxd {
			return nil
		}
	}
	// Rᵀ z = 1, then R d = z.
	z := make([]float64, k)
	for i := 0; i < k; i++ {
		s := 1.0
		for q := 0; q < i; q++ {
			s -= R(q, i) * z[q]
		}
		z[i] = s / R(i, i)
	}
	d := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		s := z[i]
		for q := i + 1; q < k; q++ {
			s -= R(i, q) * d[q]
		}
		d[i] = s / R(i, i)
	}
	return d
}

// directionGram solves (A_FᵀA_F) d = 1 by Cholesky of the Gram matrix,
// whose entries M e_iᵀ M e_j are cached (operator models, where A_F has
// m rows and a QR would cost m·k² per step). It returns nil when the Gram
// matrix is not numerically positive definite.
func (st *bpdnState) directionGram(freeIdx []int) []float64 {
	k := len(freeIdx)
	if st.gram == nil {
		st.gram = make(map[[2]int]float64)
	}
	G := mat.NewSymDense(k, nil)
	for a, i := range freeIdx {
		for b := a; b < k; b++ {
			j := freeIdx[b]
			key := [2]int{min(i, j), max(i, j)}
			v, ok := st.gram[key]
			if !ok {
				v = dot(st.col(i), st.col(j))
				st.gram[key] = v
			}
			G.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(G) || ch.Cond() > 1e13 {
		return nil
	}
	ones := mat.NewVecDense(k, nil)
	for i := 0; i < k; i++ {
		ones.SetVec(i, 1)
	}
	var d mat.VecDense
	if err := ch.SolveVecTo(&d, ones); err != nil {
		return nil
	}
	return d.RawVector().Data
}

package recovery

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// ModeCutoff is the relative singular-value threshold below which modes of
// M are dropped: a mode with s_k < ModeCutoff·s_max moves ‖Mf‖ by less
// than machine precision for any f in the box, so it carries nothing
// recoverable. Dropping it changes only estimates; privacy numbers (Δ2, σ)
// are computed elsewhere from the full operator and never depend on it.
const ModeCutoff = 1e-16

// Model is the forward operator M (m×n) in one of three forms:
//   - spectral: M = U·diag(s)·Vᵀ with the modes s_k ≥ ModeCutoff·s_max
//     (on a graph U = V = eigenvectors of L and s = e^{−τλ}; otherwise a
//     thin SVD). In the reduced coordinates z = Vᵀf,
//     ‖Mf − ỹ‖² = ‖diag(s)z − Uᵀỹ‖² + ‖(I − UUᵀ)ỹ‖², so estimators work
//     with r ≤ min(m, n) numbers instead of m.
//   - dense: M itself, row-major (NewDenseMatrixModel, or a graph with
//     FormDense, built by the Chebyshev action on the identity).
//   - operator: only the action f ↦ exp(−τL)f (expm.Chebyshev, with its
//     certified error bound), for graphs above GraphOptions.DenseLimit;
//     restricted to the sensors that reported (Rows), R_S·exp(−τL).
//
// A Model is immutable after construction and safe for concurrent use
// (the operator form computes its column norms lazily, once, under a
// sync.Once).
type Model struct {
	n, m    int
	r       int
	u, v    []float64 // row-major m×r and n×r; u aliases v on graphs
	s       []float64
	dropped int
	op      *expm.Chebyshev
	dense   []float64 // m×n row-major for plain-matrix models
	graph   *laplacian.Graph
	colN2   []float64 // ‖M e_j‖²
	colOnce sync.Once // guards the lazy estimate on operator models
	approx  bool      // colN2 is a randomised estimate
	probed  []float64 // the randomised part of colN2 (the rest is exact), when approx
	probes  int
	seed    uint64
	spacing float64 // grid spacing of a line model, 0 otherwise
	// sel, on an operator model restricted to some sensors (Rows), are
	// the reporting rows: M = R_S·exp(−τL), m = len(sel).
	sel []int
}

// GraphOptions configure NewGraphModel. The zero value means the defaults.
type GraphOptions struct {
	// DenseLimit is the largest n decomposed densely (O(n³) once).
	// Default 1500. Larger graphs use the Chebyshev action only.
	DenseLimit int
	// ChebyshevTol is the truncation error bound of the operator action.
	// Default 1e-10, or twice the action's certified rounding floor on
	// graphs where that floor is larger (hubs of thousands of links); an
	// explicit ChebyshevTol is honoured or refused.
	ChebyshevTol float64
	// Probes is the number of random ±1 probe vectors used to estimate
	// ‖M e_j‖² on operator models (relative error ≈ sqrt(2/Probes) on the
	// non-constant part). Default 32.
	Probes int
	// Seed seeds the probe vectors (they only affect estimates).
	// Default 1.
	Seed uint64
	// Form chooses the representation for n ≤ DenseLimit. Default
	// FormAuto.
	Form Form
}

// Form is the representation of a graph model with n ≤ DenseLimit.
type Form int

const (
	// FormAuto picks FormDense when the Chebyshev build is predicted to be
	// cheaper than the eigendecomposition (degree·nnz(L)·n < 3n³, true
	// for moderate τ·λmax), else FormSpectral.
	FormAuto Form = iota
	// FormSpectral is the truncated eigendecomposition M = Q·e^{−τΛ}·Qᵀ
	// (one O(n³) Dsyev).
	FormSpectral
	// FormDense forms M = exp(−τL) as a dense matrix by the Chebyshev
	// action on the identity (error ≤ ChebyshevTol in spectral norm): for
	// the paper's graph setting 0.14 s instead of 0.94 s, the same cost
	// per product, no mode truncation.
	FormDense
)

// setSpectral makes md the spectral model of exp(−τL) for g: the modes of
// L's full eigendecomposition whose e^{−τλ} is at least ModeCutoff of the
// largest.
func (md *Model) setSpectral(g *laplacian.Graph, tau float64) error {
	n := md.n
	var es mat.EigenSym
	if !es.Factorize(g.Laplacian().Dense(), true) {
		return fmt.Errorf("recovery: eigendecomposition of the %d-node Laplacian failed", n)
	}
	lam := es.Values(nil) // ascending
	var q mat.Dense
	es.VectorsTo(&q)
	smax := math.Exp(-tau * math.Max(lam[0], 0))
	keep := 0
	for _, l := range lam {
		if math.Exp(-tau*l) >= ModeCutoff*smax {
			keep++
		}
	}
	md.r = keep
	md.dropped = n - keep
	md.s = make([]float64, keep)
	for k := 0; k < keep; k++ {
		md.s[k] = math.Exp(-tau * lam[k])
	}
	md.v = make([]float64, n*keep)
	for j := 0; j < n; j++ {
		for k := 0; k < keep; k++ {
			md.v[j*keep+k] = q.At(j, k)
		}
	}
	md.u = md.v
	md.spectralColNorms()
	return nil
}

// NewGraphModel builds M = exp(−τL) for the graph g.
func NewGraphModel(g *laplacian.Graph, tau float64, opt GraphOptions) (*Model, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil graph", ErrBadProblem)
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return nil, fmt.Errorf("%w: τ = %v must be positive and finite", ErrBadProblem, tau)
	}
	if opt.DenseLimit <= 0 {
		opt.DenseLimit = 1500
	}
	heat := expm.NewChebyshev
	if !(opt.ChebyshevTol > 0) {
		opt.ChebyshevTol = 1e-10
		heat = expm.NewChebyshevOrFloor
	}
	if opt.Probes <= 0 {
		opt.Probes = 32
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	n := g.N()
	md := &Model{n: n, m: n, graph: g, probes: opt.Probes, seed: opt.Seed}
	var h *expm.Chebyshev
	if n <= opt.DenseLimit && opt.Form != FormSpectral {
		var err error
		h, err = heat(g.Laplacian(), tau, opt.ChebyshevTol)
		if err != nil && opt.Form == FormDense {
			return nil, fmt.Errorf("recovery: heat operator: %w", err)
		}
		fn := float64(n)
		if err == nil && opt.Form == FormAuto &&
			float64(h.Degree())*float64(2*g.NumEdges()+n)*fn >= 3*fn*fn*fn {
			h = nil
		}
	}
	if h != nil {
		id := make([]float64, n*n)
		for i := 0; i < n; i++ {
			id[i*n+i] = 1
		}
		dense := make([]float64, n*n)
		h.Apply(dense, id, n) // column c of the block is M e_c: row-major M
		dm := NewDenseMatrixModel(mat.NewDense(n, n, dense))
		dm.graph = g
		return dm, nil
	}
	if n <= opt.DenseLimit {
		if err := md.setSpectral(g, tau); err != nil {
			return nil, err
		}
		return md, nil
	}
	h, err := heat(g.Laplacian(), tau, opt.ChebyshevTol)
	if err != nil {
		return nil, fmt.Errorf("recovery: heat operator: %w", err)
	}
	md.op = h
	return md, nil
}

// NewLineModel builds the 1-D heat kernel expm.HeatKernel1D(m, n, T),
// A_ij = g(s_i − x_j), g(x) = exp(−x²/4T)/sqrt(4πT), with sensors
// s_i = i/m (i = 1..m) and source grid x_j = j/n (j = 1..n), as a thin SVD.
func NewLineModel(n, m int, T float64) (*Model, error) {
	if n < 1 || m < 1 {
		return nil, fmt.Errorf("%w: line model needs n, m ≥ 1 (got n=%d, m=%d)", ErrBadProblem, n, m)
	}
	if !(T > 0) || math.IsInf(T, 0) {
		return nil, fmt.Errorf("%w: T = %v must be positive and finite", ErrBadProblem, T)
	}
	A, err := expm.HeatKernel1D(m, n, T)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadProblem, err)
	}
	md, err := NewMatrixModel(A)
	if err != nil {
		return nil, err
	}
	md.spacing = 1 / float64(n)
	return md, nil
}

// NewMatrixModel builds a spectral model from an explicit m×n matrix by a
// thin SVD.
func NewMatrixModel(M *mat.Dense) (*Model, error) {
	m, n := M.Dims()
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDThin) {
		return nil, fmt.Errorf("recovery: SVD of the %d×%d matrix failed", m, n)
	}
	sv := svd.Values(nil)
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	keep := 0
	for _, s := range sv {
		if len(sv) > 0 && s >= ModeCutoff*sv[0] && s > 0 {
			keep++
		}
	}
	md := &Model{n: n, m: m, r: keep, dropped: len(sv) - keep, s: append([]float64(nil), sv[:keep]...)}
	md.u = make([]float64, m*keep)
	for i := 0; i < m; i++ {
		for k := 0; k < keep; k++ {
			md.u[i*keep+k] = U.At(i, k)
		}
	}
	md.v = make([]float64, n*keep)
	for j := 0; j < n; j++ {
		for k := 0; k < keep; k++ {
			md.v[j*keep+k] = V.At(j, k)
		}
	}
	md.spectralColNorms()
	return md, nil
}

// NewDenseMatrixModel uses the m×n matrix M as it is, with no
// factorisation and no mode truncation: every estimator works with
// products by M and Mᵀ (O(mn) each). It is the cheapest model to build
// when M is given, at a higher cost per product than a truncated spectral
// model. GraphOptions.Form = FormDense builds one for a graph.
func NewDenseMatrixModel(M *mat.Dense) *Model {
	m, n := M.Dims()
	md := &Model{n: n, m: m, dense: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			md.dense[i*n+j] = M.At(i, j)
		}
	}
	md.colN2 = make([]float64, n)
	for i := 0; i < m; i++ {
		for j, x := range md.dense[i*n : i*n+n] {
			md.colN2[j] += x * x
		}
	}
	return md
}

func (md *Model) spectralColNorms() {
	r := md.r
	md.colN2 = make([]float64, md.n)
	for j := 0; j < md.n; j++ {
		row := md.v[j*r : j*r+r]
		t := 0.0
		for k, x := range row {
			a := md.s[k] * x
			t += a * a
		}
		md.colN2[j] = t
	}
}

// N is the number of source locations, M the number of sensors.
func (md *Model) N() int { return md.n }

// M is the number of sensors.
func (md *Model) M() int { return md.m }

// Rank is the number of kept modes (0 for operator models).
func (md *Model) Rank() int { return md.r }

// Dropped is the number of modes dropped below ModeCutoff.
func (md *Model) Dropped() int { return md.dropped }

// Spectral reports whether the model has the dense spectral form.
func (md *Model) Spectral() bool { return md.op == nil && md.dense == nil }

// Operator reports whether the model is kept as the sparse action of
// exp(−τL) (a graph above GraphOptions.DenseLimit), restricted or not.
func (md *Model) Operator() bool { return md.op != nil }

// Graph is the graph of a graph model, nil otherwise.
func (md *Model) Graph() *laplacian.Graph { return md.graph }

// Spacing is the grid spacing of a line model (1/n), 0 otherwise.
func (md *Model) Spacing() float64 { return md.spacing }

// Apply sets dst = M f (len m). It panics on a length mismatch.
func (md *Model) Apply(dst, f []float64) {
	if len(dst) != md.m || len(f) != md.n {
		panic("recovery: Apply length mismatch")
	}
	if md.sel != nil {
		full := make([]float64, md.n)
		md.op.Apply(full, f, 1)
		for k, i := range md.sel {
			dst[k] = full[i]
		}
		return
	}
	if md.op != nil {
		md.op.Apply(dst, f, 1)
		return
	}
	if md.dense != nil {
		n := md.n
		for i := range dst {
			row := md.dense[i*n : i*n+n]
			t := 0.0
			for j, x := range row {
				t += x * f[j]
			}
			dst[i] = t
		}
		return
	}
	z := md.reduce(f)
	for k := range z {
		z[k] *= md.s[k]
	}
	md.expandU(dst, z)
}

// ApplyBlock sets dst = M·x for the b columns of x (n×b, row-major: entry
// i of column c at i·b + c) and reports whether it did: only a model kept as
// the sparse action applies M to a block at once (one pass over the graph
// for b columns); the others return false, and the caller applies M column
// by column. M is exp(−τL), so this is Mᵀ·x too. A restricted model
// (Rows) returns false: its M is not square.
func (md *Model) ApplyBlock(dst, x []float64, b int) bool {
	if md.op == nil || md.sel != nil {
		return false
	}
	if b < 1 || len(dst) != md.m*b || len(x) != md.n*b {
		panic("recovery: ApplyBlock length mismatch")
	}
	md.op.Apply(dst, x, b)
	return true
}

// ApplyTEach applies Mᵀ to count vectors of length M() one after another:
// fill(d, z) writes vector d (in order d = 0, 1, …, so a seeded stream
// keeps its order) and visit(d, c) reads Mᵀ·z_d. On an operator model the
// vectors go through the action 32 at a time (one pass of its wide kernel
// instead of 32 single-column ones: Monte Carlo nulls of 199–399 draws on
// 10⁴–10⁵ nodes); c is only valid during visit.
func (md *Model) ApplyTEach(count int, fill func(d int, z []float64), visit func(d int, c []float64)) {
	const block = 32
	z, c := make([]float64, md.m), make([]float64, md.n)
	if md.op == nil {
		for d := range count {
			fill(d, z)
			md.ApplyT(c, z)
			visit(d, c)
		}
		return
	}
	n := md.n
	Z, C := make([]float64, n*block), make([]float64, n*block)
	for lo := 0; lo < count; lo += block {
		b := min(block, count-lo)
		clear(Z[:n*b])
		for k := range b {
			fill(lo+k, z)
			for j, v := range z {
				i := j
				if md.sel != nil {
					i = md.sel[j] // Mᵀ = exp(−τL)·R_Sᵀ
				}
				Z[i*b+k] = v
			}
		}
		md.op.Apply(C[:n*b], Z[:n*b], b) // exp(−τL) is symmetric
		for k := range b {
			for i := range c {
				c[i] = C[i*b+k]
			}
			visit(lo+k, c)
		}
	}
}

// ApplyT sets dst = Mᵀ y (len n). It panics on a length mismatch.
func (md *Model) ApplyT(dst, y []float64) {
	if len(dst) != md.n || len(y) != md.m {
		panic("recovery: ApplyT length mismatch")
	}
	if md.sel != nil {
		md.op.Apply(dst, md.scatter(y), 1) // exp(−τL)·R_Sᵀ y
		return
	}
	if md.op != nil {
		md.op.Apply(dst, y, 1) // exp(−τL) is symmetric
		return
	}
	if md.dense != nil {
		n := md.n
		for j := range dst {
			dst[j] = 0
		}
		for i, yi := range y {
			if yi == 0 {
				continue
			}
			row := md.dense[i*n : i*n+n]
			for j, x := range row {
				dst[j] += yi * x
			}
		}
		return
	}
	z := md.projectU(y)
	for k := range z {
		z[k] *= md.s[k]
	}
	md.expandV(dst, z)
}

// reduce returns Vᵀf.
func (md *Model) reduce(f []float64) []float64 {
	r := md.r
	z := make([]float64, r)
	for j, fj := range f {
		if fj == 0 {
			continue
		}
		row := md.v[j*r : j*r+r]
		for k, x := range row {
			z[k] += fj * x
		}
	}
	return z
}

// projectU returns Uᵀy.
func (md *Model) projectU(y []float64) []float64 {
	r := md.r
	z := make([]float64, r)
	for i, yi := range y {
		row := md.u[i*r : i*r+r]
		for k, x := range row {
			z[k] += yi * x
		}
	}
	return z
}

// expandU sets dst = U z.
func (md *Model) expandU(dst, z []float64) { expandRows(dst, md.u, md.r, z) }

// expandV sets dst = V z.
func (md *Model) expandV(dst, z []float64) { expandRows(dst, md.v, md.r, z) }

// expandRows sets dst = A z for A row-major with r columns.
func expandRows(dst, a []float64, r int, z []float64) {
	for i := range dst {
		row := a[i*r : i*r+r]
		t := 0.0
		for k, x := range row {
			t += x * z[k]
		}
		dst[i] = t
	}
}

// ColumnNorms2 returns ‖M e_j‖² for every location j. On spectral models
// it is exact (Σ_k s_k² V_jk²). On operator models it is the randomised
// estimate 1/|C(j)| + mean_c ((M − P₀)v_c)_j² over Probes Rademacher
// vectors v_c, where P₀ averages over the connected component C(j):
// ‖Me_j‖² = 1/|C(j)| + ‖(M − P₀)e_j‖² exactly (M P₀ = P₀), and
// E[((M − P₀)v)_j²] = ‖(M − P₀)e_j‖² for independent ±1 entries. It is
// only ever used by estimators, never by privacy accounting.
//
// On a restricted operator model (Rows) they are Σ_{i∈S} A_is², exact or
// estimated as Rows says.
func (md *Model) ColumnNorms2() (norms []float64, approximate bool) {
	switch {
	case md.sel != nil:
		md.colOnce.Do(md.rowNorms)
	case md.op != nil:
		md.colOnce.Do(md.estimateColNorms)
	}
	return md.colN2, md.approx
}

func (md *Model) estimateColNorms() {
	n := md.n
	b := md.probes
	cnt, label := md.graph.Components()
	size := make([]float64, cnt)
	for _, c := range label {
		size[c]++
	}
	rng := rand.New(rand.NewPCG(md.seed, 0x9e3779b97f4a7c15))
	x := make([]float64, n*b)
	for i := range x {
		if rng.Uint64()&1 == 0 {
			x[i] = 1
		} else {
			x[i] = -1
		}
	}
	y := make([]float64, n*b)
	md.op.Apply(y, x, b)
	// Subtract P₀x = per-component means (M P₀ = P₀, so (M − P₀)x = Mx − P₀x).
	mean := make([]float64, cnt*b)
	for i := 0; i < n; i++ {
		c := int(label[i])
		for p := 0; p < b; p++ {
			mean[c*b+p] += x[i*b+p]
		}
	}
	for c := 0; c < cnt; c++ {
		for p := 0; p < b; p++ {
			mean[c*b+p] /= size[c]
		}
	}
	out, probed := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		c := int(label[i])
		t := 0.0
		for p := 0; p < b; p++ {
			d := y[i*b+p] - mean[c*b+p]
			t += d * d
		}
		probed[i] = t / float64(b)
		out[i] = 1/size[c] + probed[i]
	}
	md.colN2, md.probed = out, probed
	md.approx = true
}

// Problem is one recovery instance: a model, noisy data and the noise
// level.
type Problem struct {
	Model *Model
	// Y is ỹ, length Model.M().
	Y []float64
	// Sigma is the per-sensor noise standard deviation σ > 0.
	Sigma float64
	// Sources is the number of sources k; 0 means unknown.
	Sources int
	// Mass is the mass of one source for the likelihood estimators.
	// Default 1 (unit sources, as in the paper).
	Mass float64
	// Eta selects BPDN's η (default EtaTail); Beta is its failure
	// probability (default 0.01).
	Eta  EtaRule
	Beta float64
}

// Problem returns a problem for data y with noise σ on this model.
func (md *Model) Problem(y []float64, sigma float64) *Problem {
	return &Problem{Model: md, Y: y, Sigma: sigma}
}

// NewGraphProblem is NewGraphModel followed by Model.Problem.
func NewGraphProblem(g *laplacian.Graph, tau float64, y []float64, sigma float64, opt GraphOptions) (*Problem, error) {
	md, err := NewGraphModel(g, tau, opt)
	if err != nil {
		return nil, err
	}
	p := md.Problem(y, sigma)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// NewLineProblem is NewLineModel followed by Model.Problem.
func NewLineProblem(n, m int, T float64, y []float64, sigma float64) (*Problem, error) {
	md, err := NewLineModel(n, m, T)
	if err != nil {
		return nil, err
	}
	p := md.Problem(y, sigma)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks the problem's shapes and numbers.
func (p *Problem) Validate() error {
	if p == nil || p.Model == nil {
		return fmt.Errorf("%w: no model", ErrBadProblem)
	}
	if len(p.Y) != p.Model.m {
		return fmt.Errorf("%w: len(y) = %d, want %d sensors", ErrBadProblem, len(p.Y), p.Model.m)
	}
	for i, y := range p.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("%w: y[%d] = %v is not finite", ErrBadProblem, i, y)
		}
	}
	if !(p.Sigma > 0) || math.IsInf(p.Sigma, 0) {
		return fmt.Errorf("%w: σ = %v must be positive and finite", ErrBadProblem, p.Sigma)
	}
	if p.Sources < 0 || p.Sources > p.Model.n {
		return fmt.Errorf("%w: sources = %d out of range [0, %d]", ErrBadProblem, p.Sources, p.Model.n)
	}
	if p.Mass < 0 || math.IsNaN(p.Mass) || math.IsInf(p.Mass, 0) {
		return fmt.Errorf("%w: mass = %v must be positive and finite", ErrBadProblem, p.Mass)
	}
	if p.Beta < 0 || p.Beta >= 1 || math.IsNaN(p.Beta) {
		return fmt.Errorf("%w: β = %v must be in (0, 1)", ErrBadProblem, p.Beta)
	}
	return nil
}

// EtaValue is the BPDN noise radius η of this problem.
func (p *Problem) EtaValue() float64 { return p.Eta.Eta(p.Model.m, p.Sigma, p.Beta) }

func (p *Problem) mass() float64 {
	if p.Mass > 0 {
		return p.Mass
	}
	return 1
}

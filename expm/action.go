package expm

import (
	"errors"
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// Method selects how exp(−τL) is applied.
type Method int

const (
	// Auto chooses by size and estimated cost (see NewAction).
	Auto Method = iota
	// Dense uses the symmetric eigendecomposition (n ≤ DenseLimit only).
	Dense
	// Sparse uses the Chebyshev action with a certified error bound.
	Sparse
)

// String returns "auto", "dense" or "sparse".
func (m Method) String() string {
	switch m {
	case Auto:
		return "auto"
	case Dense:
		return "dense"
	case Sparse:
		return "sparse"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// DefaultTol is the default accuracy of an Action.
const DefaultTol = 1e-12

// Options configure NewAction. The zero value means the defaults.
type Options struct {
	// Method forces Dense or Sparse. Default Auto.
	Method Method
	// DenseLimit is the largest n for which a dense n×n matrix may be
	// allocated, also when Method is Dense. Default DefaultDenseLimit (4000).
	DenseLimit int
	// Tol is the required bound on ‖exp(−τL) − approximation‖₂ for the
	// sparse path, in (0, 1). Default DefaultTol (1e−12); with the default,
	// a graph whose certified rounding floor exceeds it gets twice the
	// floor instead of an error. An explicit Tol is honoured or refused
	// (*ToleranceError). An explicitly requested Dense action does not
	// check Tol: read its ErrorBound.
	Tol float64
	// Columns is the expected total number of vectors the action will be
	// applied to, used only by Auto's cost model. Default n (every column,
	// as for a sensitivity computation).
	Columns int
	// OwnOrder runs the sparse action in g's own node order, without the
	// Cuthill–McKee reordering (localOrder): for an action applied a few
	// times, or read only for its Degree, whose reordering would cost more
	// than it saves (LFR 10⁵: 0.15 s of a core). Results are the same bits.
	OwnOrder bool
}

// Action applies exp(−τL) to row-major n×b blocks (X[i*b+c] is entry i of
// column c). Apply panics on a length mismatch or when dst aliases x.
// ErrorBound bounds ‖exp(−τL) − applied operator‖₂; each output column is
// within ErrorBound()·‖x_col‖₂ of the exact one.
type Action interface {
	Apply(dst, x []float64, b int)
	ErrorBound() float64
	Method() Method
	N() int
}

// Cost-model constants, measured on the reference 2-core machine
// (docs/derivations.md §2.3): Dsyev with vectors ≈ costEig·n³ seconds,
// dense products at ≈ 13.5 GFLOP/s, sparse Chebyshev ≈ costStep seconds
// per (nonzero incl. diagonal)·degree·column.
const (
	costEig  = 1.5e-9
	costFlop = 1 / 13.5e9
	costStep = 4e-10
)

// NewAction returns exp(−τL) as an Action for g's Laplacian.
//
// Auto picks Dense when n ≤ DenseLimit, the dense a-priori error
// (ExpErrorBound with the eigenvalues bounded by B) is ≤ Tol, and
//
//	costEig·n³ + costFlop·2n²·Columns < costStep·K·(2|E| + n)·Columns,
//
// i.e. the eigendecomposition plus dense products beat Columns sparse
// Chebyshev applications of degree K; otherwise Sparse. A dense n×n is never
// allocated above DenseLimit: Method = Dense then fails with *TooLargeError.
// τ must be positive and finite, Tol in (0, 1) or 0 (*ParamError).
func NewAction(g *laplacian.Graph, tau float64, opt Options) (Action, error) {
	if err := checkTau(tau); err != nil {
		return nil, err
	}
	tol, defTol := opt.Tol, false
	if tol == 0 {
		tol, defTol = DefaultTol, true
	}
	if err := checkTol(tol); err != nil {
		return nil, err
	}
	limit := opt.DenseLimit
	if limit <= 0 {
		limit = DefaultDenseLimit
	}
	n := g.N()
	switch opt.Method {
	case Dense:
		return newDenseAction(g, tau, limit)
	case Sparse:
		return newSparse(g, tau, tol, defTol, !opt.OwnOrder)
	case Auto:
	default:
		return nil, fmt.Errorf("expm: unknown method %d", int(opt.Method))
	}
	ch, err := newSparse(g, tau, tol, defTol, !opt.OwnOrder)
	if err != nil || n > limit {
		return ch, err
	}
	cols := float64(opt.Columns)
	if opt.Columns <= 0 {
		cols = float64(n)
	}
	nf := float64(n)
	dense := costEig*nf*nf*nf + costFlop*2*nf*nf*cols
	sparse := costStep * float64(ch.Degree()) * (2*float64(g.NumEdges()) + nf) * cols
	B, maxRow := lambdaMaxBound(g)
	eta := nf*unitRoundoff*B + gamma(maxRow)*g.MaxDegree()
	denseErr := tau*eta*math.Exp(tau*eta) + 3*(nf+2)*unitRoundoff
	if dense < sparse && denseErr <= tol {
		return newDenseAction(g, tau, limit)
	}
	return ch, nil
}

func newSparse(g *laplacian.Graph, tau, tol float64, defTol, reorder bool) (*Chebyshev, error) {
	if defTol {
		return chebyshevOrFloor(g.Laplacian(), tau, tol, reorder)
	}
	return newChebyshev(g.Laplacian(), tau, tol, reorder)
}

// NewChebyshevOrFloor is NewChebyshev for a tolerance that is a default
// rather than a requirement: where the certified rounding floor of the
// graph exceeds tol, the action is built for twice the floor instead of
// returning a *ToleranceError (the floor grows with the largest degree
// and τ·λ_max, and on hub-heavy graphs of 10⁴–10⁵ nodes passes 1e−10).
// Read the result's ErrorBound for the accuracy obtained.
func NewChebyshevOrFloor(op *laplacian.Operator, tau, tol float64) (*Chebyshev, error) {
	return chebyshevOrFloor(op, tau, tol, true)
}

// chebyshevOrFloor is NewChebyshevOrFloor, reordered for locality or not
// (newChebyshev).
func chebyshevOrFloor(op *laplacian.Operator, tau, tol float64, reorder bool) (*Chebyshev, error) {
	ch, err := newChebyshev(op, tau, tol, reorder)
	var te *ToleranceError
	if errors.As(err, &te) && 2*te.Floor < 1 {
		return newChebyshev(op, tau, 2*te.Floor, reorder)
	}
	return ch, err
}

type denseAction struct {
	a     *mat.SymDense
	n     int
	bound float64
}

func newDenseAction(g *laplacian.Graph, tau float64, limit int) (*denseAction, error) {
	e, err := Decompose(g, DenseOptions{Limit: limit})
	if err != nil {
		return nil, err
	}
	return &denseAction{a: e.Exp(tau), n: e.N(), bound: e.ExpErrorBound(tau)}, nil
}

func (d *denseAction) Apply(dst, x []float64, b int) {
	if b < 1 || len(dst) != d.n*b || len(x) != d.n*b {
		panic("expm: dense Apply length mismatch")
	}
	if &dst[0] == &x[0] {
		panic("expm: dense Apply dst aliases x")
	}
	out := mat.NewDense(d.n, b, dst)
	out.Mul(d.a, mat.NewDense(d.n, b, x))
}

func (d *denseAction) ErrorBound() float64 { return d.bound }
func (d *denseAction) Method() Method      { return Dense }
func (d *denseAction) N() int              { return d.n }

package expm

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// DefaultDenseLimit is the largest n for which a dense n×n matrix is
// allocated unless configured otherwise (4000² float64s = 128 MB).
const DefaultDenseLimit = 4000

// DenseOptions configure Decompose. The zero value means the defaults.
type DenseOptions struct {
	// Limit is the largest n accepted; larger graphs are refused with a
	// *TooLargeError before anything is allocated. Default DefaultDenseLimit.
	Limit int
}

func (o DenseOptions) limit() int {
	if o.Limit <= 0 {
		return DefaultDenseLimit
	}
	return o.Limit
}

// Eigen is the symmetric eigendecomposition L = Q·diag(Values)·Qᵀ of a
// graph Laplacian: Values ascending, Vectors orthonormal columns (column k
// belongs to Values[k]).
type Eigen struct {
	Values  []float64
	Vectors *mat.Dense

	b    float64 // LambdaMaxBound of the graph
	epsD float64 // rounding of the weighted degrees
}

// Decompose computes the eigendecomposition of g's Laplacian with LAPACK
// Dsyev (gonum: Householder tridiagonalisation + implicit QL/QR), working
// in a single n×n buffer. It refuses n > opt.Limit with a *TooLargeError
// before allocating, and returns an error if Dsyev fails to converge.
// Cost ≈ 1.5e−9·n³ s on the reference 2-core machine (n = 1000: 1.5 s).
func Decompose(g *laplacian.Graph, opt DenseOptions) (*Eigen, error) {
	n := g.N()
	if lim := opt.limit(); n > lim {
		return nil, &TooLargeError{N: n, Limit: lim}
	}
	buf := make([]float64, n*n)
	deg := g.Degrees()
	for i := 0; i < n; i++ {
		buf[i*n+i] = deg[i]
	}
	g.ForEachEdge(func(i, j int, w float64) { buf[i*n+j], buf[j*n+i] = -w, -w })
	a := blas64.Symmetric{N: n, Stride: n, Data: buf, Uplo: blas.Upper}
	w := make([]float64, n)
	work := []float64{0}
	lapack64.Syev(lapack.EVCompute, a, w, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Syev(lapack.EVCompute, a, w, work, len(work)) {
		return nil, fmt.Errorf("expm: symmetric eigensolver did not converge (n = %d)", n)
	}
	B, maxRow := lambdaMaxBound(g)
	e := &Eigen{Values: w, Vectors: mat.NewDense(n, n, buf), b: B}
	if !g.Unweighted() {
		e.epsD = gamma(maxRow) * g.MaxDegree()
	}
	return e, nil
}

// N returns the dimension.
func (e *Eigen) N() int { return len(e.Values) }

// Exp returns exp(−τL) = Q·diag(e^{−τλ})·Qᵀ, formed as H·Hᵀ with
// H = Q·diag(e^{−τλ/2}) so that the result is exactly symmetric and
// positive semi-definite. It panics if τ is negative or NaN.
func (e *Eigen) Exp(tau float64) *mat.SymDense {
	if !(tau >= 0) {
		panic("expm: Exp needs τ ≥ 0")
	}
	h := e.Scaled(tau / 2)
	n := e.N()
	out := mat.NewSymDense(n, nil)
	out.SymOuterK(1, h)
	return out
}

// Scaled returns G = Q·diag(e^{−τλ}), so that exp(−2τL) = G·Gᵀ and
// ‖exp(−τL)(e_i − e_j)‖₂ = ‖G_i − G_j‖₂ over rows i, j (the sensitivity
// identity of DESIGN.md §1). It panics if τ is negative or NaN.
func (e *Eigen) Scaled(tau float64) *mat.Dense {
	if !(tau >= 0) {
		panic("expm: Scaled needs τ ≥ 0")
	}
	n := e.N()
	g := mat.DenseCopyOf(e.Vectors)
	s := make([]float64, n)
	for k, l := range e.Values {
		s[k] = math.Exp(-tau * l)
	}
	raw := g.RawMatrix()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for k := range row {
			row[k] *= s[k]
		}
	}
	return g
}

// EigenErrorBound returns η, a perturbation margin for the dense path: the
// computed decomposition is taken to be exact for a matrix L + E with
//
//	‖E‖₂ ≤ η = n·u·max(B, max|λ|) + ε_D,
//
// u = 2^−53, B = LambdaMaxBound, ε_D the rounding of the weighted degrees.
// Backward stability of Dsyev gives ‖E‖₂ ≤ p(n)·u·‖L‖₂ for a modest p(n);
// p(n) = n is a conservative HEURISTIC, not a proven constant for gonum's
// implementation (docs/derivations.md §2.2). The loss of orthogonality of Q̂
// (also O(p(n)u)) is accounted for in ExpErrorBound, not here.
// For Δ₂ from Scaled: add √2·τ·η to each ‖G_i − G_j‖ (notes §2.2).
func (e *Eigen) EigenErrorBound() float64 {
	n := e.N()
	m := e.b
	for _, l := range e.Values {
		m = math.Max(m, math.Abs(l))
	}
	return float64(n)*unitRoundoff*m + e.epsD
}

// ExpErrorBound returns the margin for ‖Exp(τ) − exp(−τL)‖₂:
//
//	τη·e^{τη} + 3(n+2)·u,
//
// Duhamel's bound for the perturbation E of EigenErrorBound plus the
// non-orthogonality of Q̂ and the rounding of the product (heuristic p(n) = n,
// as in EigenErrorBound).
func (e *Eigen) ExpErrorBound(tau float64) float64 {
	eta := e.EigenErrorBound()
	return tau*eta*math.Exp(tau*eta) + 3*float64(e.N()+2)*unitRoundoff
}

package sensitivity

import (
	"errors"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// denseGraphSensitivity computes Δ2 from a dense eigendecomposition
// L ≈ Q̂ Λ̂ Q̂ᵀ (gonum EigenSym, LAPACK Dsyev):
//
//	‖exp(−τL) b_e‖ ≈ ‖diag(e^{−τλ̂}) Q̂ᵀ b_e‖   (docs/derivations.md §2.1)
//
// and certifies it a posteriori, without trusting the eigensolver, by the
// bracket of §2.8 on all eigenvectors off the null space: its error terms
// carry the damping e^{−τλ₂}, so the bracket stays relative when Δ2 is
// tiny (large τ). The result is exact to the reported slack and rounded up.
func denseGraphSensitivity(g *laplacian.Graph, tau, alpha float64, s Result) (Result, error) {
	n := g.N()
	var es mat.EigenSym
	if ok := es.Factorize(g.Laplacian().Dense(), true); !ok {
		return Result{}, errors.New("sensitivity: dense eigendecomposition did not converge")
	}
	lam := es.Values(nil)
	Q := mat.NewDense(n, n, nil)
	es.VectorsTo(Q)
	qraw := Q.RawMatrix().Data
	comps, label := g.Components()
	// The eigenvectors of the comps smallest eigenvalues span (nearly) the
	// null space; the rest, projected off it, are the basis.
	m := n - comps
	q := make([]float64, n*m)
	for i := 0; i < n; i++ {
		copy(q[i*m:i*m+m], qraw[i*n+comps:i*n+n])
	}
	projectOffNull(q, m, label, comps)
	theta := append([]float64(nil), lam[comps:]...)
	up, lo, edge, ok := modeBrackets(g, newModeBasis(g, q, m, theta), tau, math.Inf(1))
	if !ok {
		return Result{}, errors.New("sensitivity: dense eigenvectors far from orthogonal; cannot certify")
	}
	s.Delta2 = math.Max(roundUpDelta(alpha*up), math.SmallestNonzeroFloat64) // never 0: Δ2 > 0 on an edge
	s.Slack = math.Max(0, s.Delta2-roundDownDelta(alpha*lo))
	s.Edge = edge
	s.Exact = true
	s.Method = "dense-eigen"
	// exp(−τL) has eigenvalues e^{−τλ}, largest 1 (λ = 0), smallest e^{−τλ_max}.
	s.Kappa2 = math.Exp(tau * lam[n-1])
	return s, nil
}

// projectOffNull subtracts from every column of q (n×m row-major) its mean
// on each connected component, moving it off L's null space (up to
// rounding, which the certificate bounds).
func projectOffNull(q []float64, m int, label []int32, comps int) {
	mean := make([]float64, comps*m)
	size := make([]float64, comps)
	for i, c := range label {
		size[c]++
		row, s := q[i*m:i*m+m], mean[int(c)*m:int(c)*m+m]
		for k, v := range row {
			s[k] += v
		}
	}
	for c := range comps {
		for k := range m {
			mean[c*m+k] /= size[c]
		}
	}
	for i, c := range label {
		row, s := q[i*m:i*m+m], mean[int(c)*m:int(c)*m+m]
		for k := range row {
			row[k] -= s[k]
		}
	}
}

// highamGamma is Higham's γ_k = k·u/(1 − k·u).
func highamGamma(k int) float64 {
	ku := float64(k) * roundoffU
	return ku / (1 - ku)
}

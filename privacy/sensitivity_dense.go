package privacy

import (
	"errors"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// denseGraphSensitivity computes Δ2 from a dense eigendecomposition
// L ≈ Q̂ Λ̂ Q̂ᵀ (gonum EigenSym, LAPACK Dsyev):
//
//	‖exp(−τL) b_e‖ ≈ ‖G_i − G_j‖,  G = Q̂ · diag(e^{−τλ̂})   (docs/derivations.md §2.1)
//
// and certifies it a posteriori, without trusting the eigensolver:
//
//	η   ≥ ‖Q̂ᵀQ̂ − I‖₂          (computed Gram matrix + γ_{n+1}·‖Q̂‖²_F rounding)
//	ρ   ≥ ‖LQ̂ − Q̂Λ̂‖₂          (computed residual + its rounding bound)
//	ε_L = ρ/√(1−η) + 2√(1+η)·‖Λ̂‖·η/(1−η)  ≥ ‖L − UΛ̂Uᵀ‖₂,  Q̂ = UP polar
//	|‖exp(−τL)b_e‖ − ‖DQ̂ᵀb_e‖| ≤ √2·e^{τε_L}(τε_L + η)
//
// (Duhamel for the exponential, ‖P − I‖ ≤ η for the polar factor), plus the
// rounding of the row-difference norm itself. The result is exact to the
// reported slack (twice that margin) and rounded up.
func denseGraphSensitivity(g *laplacian.Graph, tau, alpha float64, s Sensitivity) (Sensitivity, error) {
	n := g.N()
	op := g.Laplacian()
	var es mat.EigenSym
	if ok := es.Factorize(op.Dense(), true); !ok {
		return Sensitivity{}, errors.New("privacy: dense eigendecomposition did not converge")
	}
	lam := es.Values(nil)
	Q := mat.NewDense(n, n, nil)
	es.VectorsTo(Q)
	qraw := Q.RawMatrix()
	u := roundoffU

	lamNorm := 0.0
	for _, l := range lam {
		lamNorm = math.Max(lamNorm, math.Abs(l))
	}

	// η: orthogonality defect of Q̂. |fl(QᵀQ) − QᵀQ| ≤ γ_n |Qᵀ||Q| entrywise,
	// whose Frobenius norm is ≤ γ_n ‖Q‖²_F.
	gram := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	blas64.Syrk(blas.Trans, 1, qraw, 0, gram)
	defect, qF2 := 0.0, 0.0
	for i := 0; i < n; i++ {
		row := gram.Data[i*n : i*n+n]
		for j := i; j < n; j++ {
			v := row[j]
			if i == j {
				qF2 += v
				v -= 1
				defect += v * v
			} else {
				defect += 2 * v * v
			}
		}
	}
	gram.Data = nil
	qF2 *= 1 + highamGamma(n+1)
	eta := (math.Sqrt(defect)*(1+highamGamma(3)) + highamGamma(n+1)*qF2) * (1 + 1e-12)
	if eta >= 0.5 {
		return Sensitivity{}, errors.New("privacy: dense eigenvectors far from orthogonal; cannot certify")
	}

	// ρ: residual LQ̂ − Q̂Λ̂, computed row by row with the sparse Laplacian.
	lq := make([]float64, n*n)
	op.MulBlock(lq, qraw.Data, n)
	res := 0.0
	for i := 0; i < n; i++ {
		row := lq[i*n : i*n+n]
		qi := qraw.Data[i*n : i*n+n]
		for k := range row {
			r := row[k] - qi[k]*lam[k]
			res += r * r
		}
	}
	lq = nil
	wmax := 0
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		wmax = max(wmax, len(c))
	}
	absL := 2 * g.MaxDegree() // ‖|L|‖₂ ≤ max row sum of D + W
	rho := math.Sqrt(res)*(1+highamGamma(n+3)) + highamGamma(wmax+4)*(absL+lamNorm)*math.Sqrt(qF2)
	rho *= 1 + 1e-12
	epsL := rho/math.Sqrt(1-eta) + 2*math.Sqrt(1+eta)*lamNorm*eta/(1-eta)
	growth := math.Exp(tau * epsL)
	margin := math.Sqrt2 * growth * (tau*epsL + eta)

	// G = Q̂ diag(e^{−τλ̂}) in place, and per-edge row differences.
	ex := make([]float64, n)
	lamMax := 0.0
	for k, l := range lam {
		ex[k] = math.Exp(-tau * l)
		lamMax = math.Max(lamMax, l)
	}
	// Relative error of each G entry: exp of an argument with relative error
	// ≤ 2u gives (2|τλ| + 2)u, plus the product's u.
	gRel := (2*tau*lamNorm + 4) * u
	rowNorm := make([]float64, n)
	for i := 0; i < n; i++ {
		row := qraw.Data[i*n : i*n+n]
		s2 := 0.0
		for k := range row {
			row[k] *= ex[k]
			s2 += row[k] * row[k]
		}
		rowNorm[i] = math.Sqrt(s2)
	}
	bestUp, bestLo := -1.0, 0.0
	g.ForEachEdge(func(i, j int, _ float64) {
		gi := qraw.Data[i*n : i*n+n]
		gj := qraw.Data[j*n : j*n+n]
		s2 := 0.0
		for k := range gi {
			d := gi[k] - gj[k]
			s2 += d * d
		}
		r := math.Sqrt(s2)
		// Rounding: entry errors (gRel + u)(|G_ik| + |G_jk|) in ℓ2, then the
		// sum of n squares and the square root.
		fl := (gRel+u)*(rowNorm[i]+rowNorm[j])*(1+highamGamma(n+2)) + highamGamma(n+3)*r
		up := r + fl + margin
		lo := r - fl - margin
		if up > bestUp {
			bestUp = up
			s.Edge = [2]int{i, j}
		}
		bestLo = math.Max(bestLo, lo)
	})
	s.Delta2 = roundUpDelta(alpha * bestUp)
	lower := roundDownDelta(alpha * bestLo)
	s.Slack = math.Max(0, s.Delta2-lower)
	s.Exact = true
	s.Method = "dense-eigen"
	// exp(−τL) has eigenvalues e^{−τλ}, largest 1 (λ = 0), smallest e^{−τλ_max}.
	s.Kappa2 = math.Exp(tau * lamMax)
	return s, nil
}

// highamGamma is Higham's γ_k = k·u/(1 − k·u).
func highamGamma(k int) float64 {
	ku := float64(k) * roundoffU
	return ku / (1 - ku)
}

package recovery

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// nnlsBrute solves min ½xᵀGx − rhsᵀx s.t. x ≥ 0 by trying every support S:
// the minimiser is the unconstrained solution on some S that is positive
// there, and the convex objective makes the best such candidate optimal.
func nnlsBrute(G *mat.SymDense, rhs []float64) ([]float64, float64) {
	k := len(rhs)
	best, bestObj := make([]float64, k), 0.0
	for mask := 1; mask < 1<<k; mask++ {
		var idx []int
		for i := 0; i < k; i++ {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		A := mat.NewDense(len(idx), len(idx), nil)
		b := mat.NewVecDense(len(idx), nil)
		for a, i := range idx {
			b.SetVec(a, rhs[i])
			for c, j := range idx {
				A.Set(a, c, G.At(i, j))
			}
		}
		var sol mat.VecDense
		if sol.SolveVec(A, b) != nil {
			continue
		}
		x := make([]float64, k)
		feasible := true
		for a, i := range idx {
			x[i] = sol.AtVec(a)
			feasible = feasible && x[i] > 0
		}
		if obj := nnlsObjective(G, rhs, x); feasible && obj < bestObj {
			best, bestObj = x, obj
		}
	}
	return best, bestObj
}

func nnlsObjective(G *mat.SymDense, rhs, x []float64) float64 {
	k := len(x)
	xv := mat.NewVecDense(k, x)
	return 0.5*mat.Inner(xv, G, xv) - mat.Dot(xv, mat.NewVecDense(k, rhs))
}

// nnlsGram agrees with brute force over all supports on random positive
// definite Gram matrices (k ≤ 6), in objective and in x.
func TestNNLSGramBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for trial := 0; trial < 200; trial++ {
		k := 1 + trial%6
		B := mat.NewDense(k+2, k, nil)
		for i := 0; i < k+2; i++ {
			for j := 0; j < k; j++ {
				B.Set(i, j, rng.NormFloat64())
			}
		}
		G := mat.NewSymDense(k, nil)
		G.SymOuterK(1, B.T())
		rhs := make([]float64, k)
		for i := range rhs {
			rhs[i] = rng.NormFloat64()
		}
		got := nnlsGram(G, rhs)
		want, wantObj := nnlsBrute(G, rhs)
		gotObj := nnlsObjective(G, rhs, got)
		if math.Abs(gotObj-wantObj) > 1e-9*(1+math.Abs(wantObj)) {
			t.Fatalf("trial %d (k=%d): objective %v, brute force %v (x %v vs %v)", trial, k, gotObj, wantObj, got, want)
		}
		for i := range got {
			if got[i] < 0 || math.Abs(got[i]-want[i]) > 1e-6 {
				t.Fatalf("trial %d (k=%d): x %v, brute force %v", trial, k, got, want)
			}
		}
	}
}

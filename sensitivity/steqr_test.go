package sensitivity

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// eigenSymRows must agree with gonum's EigenSym (the untouched Dsteqr) to
// rounding: the same eigenvalues, and eigenvectors with small residual
// ‖LQ − QΛ‖ and orthonormal to working precision — on a hub-heavy graph
// with clustered eigenvalues, where a wrong rotation order would show.
func TestEigenSymRows(t *testing.T) {
	for _, spec := range []string{"pa:n=300,m=2,seed=3", "complete:n=41"} {
		g, _, err := laplacian.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		n := g.N()
		L := g.Laplacian().Dense()
		var es mat.EigenSym
		if !es.Factorize(L, false) {
			t.Fatal("EigenSym")
		}
		want := es.Values(nil)
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				a[i*n+j] = L.At(i, j)
			}
		}
		lam, ok := eigenSymRows(n, a)
		if !ok {
			t.Fatalf("%s: no convergence", spec)
		}
		scale := want[n-1]
		for k := range lam {
			if math.Abs(lam[k]-want[k]) > 1e-12*scale {
				t.Fatalf("%s: λ_%d = %v, EigenSym %v", spec, k, lam[k], want[k])
			}
		}
		Q := mat.NewDense(n, n, a)
		var r mat.Dense
		r.Mul(L, Q)
		for k := range n {
			for i := range n {
				r.Set(i, k, r.At(i, k)-lam[k]*Q.At(i, k))
			}
		}
		if res := mat.Norm(&r, 2); res > 1e-11*scale {
			t.Fatalf("%s: ‖LQ − QΛ‖ = %v", spec, res)
		}
		var gram mat.Dense
		gram.Mul(Q.T(), Q)
		for i := range n {
			gram.Set(i, i, gram.At(i, i)-1)
		}
		if d := mat.Norm(&gram, 2); d > 1e-12 {
			t.Fatalf("%s: ‖QᵀQ − I‖ = %v", spec, d)
		}
	}
}

// BenchmarkEigenSymRows compares eigenSymRows with gonum's EigenSym on
// a preferential-attachment Laplacian (the dense method's cost).
func BenchmarkEigenSymRows(b *testing.B) {
	g, _, err := laplacian.Generate("pa:n=1000,m=3,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	n := g.N()
	L := g.Laplacian().Dense()
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			a := append([]float64(nil), L.RawSymmetric().Data...)
			for i := range n {
				for j := range i {
					a[i*n+j] = a[j*n+i]
				}
			}
			if _, ok := eigenSymRows(n, a); !ok {
				b.Fatal("no convergence")
			}
		}
	})
	b.Run("gonum", func(b *testing.B) {
		for b.Loop() {
			var es mat.EigenSym
			if !es.Factorize(L, true) {
				b.Fatal("no convergence")
			}
		}
	})
}

package expm

import (
	"errors"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

func TestDecomposeClosedForms(t *testing.T) {
	// K_n: exp(−τL) = J/n + e^{−τn}(I − J/n)   (L = nI − J).
	for _, n := range []int{2, 5, 12} {
		for _, tau := range []float64{0.05, 0.3, 1} {
			e, err := Decompose(completeGraph(t, n), DenseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			A := e.Exp(tau)
			nf := float64(n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					want := 1/nf - math.Exp(-tau*nf)/nf
					if i == j {
						want += math.Exp(-tau * nf)
					}
					if d := math.Abs(A.At(i, j) - want); d > 1e-14 {
						t.Errorf("K_%d τ=%g (%d,%d): %v want %v", n, tau, i, j, A.At(i, j), want)
					}
				}
			}
		}
	}
	// Star with N nodes, hub 0 (docs/derivations.md §3, derived from the spectrum
	// {0, 1^(N−2), N}).
	for _, N := range []int{3, 6, 20} {
		for _, tau := range []float64{0.1, 0.7, 2} {
			e, err := Decompose(starGraph(t, N), DenseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			A := e.Exp(tau)
			nf := float64(N)
			eN, e1 := math.Exp(-tau*nf), math.Exp(-tau)
			hh := 1/nf + eN*(nf-1)/nf
			hl := (1 - eN) / nf
			ll := 1/nf + e1*(nf-2)/(nf-1) + eN/(nf*(nf-1))
			lm := 1/nf - e1/(nf-1) + eN/(nf*(nf-1))
			check := func(i, j int, want float64) {
				if d := math.Abs(A.At(i, j) - want); d > 1e-14 {
					t.Errorf("star N=%d τ=%g (%d,%d): %v want %v", N, tau, i, j, A.At(i, j), want)
				}
			}
			check(0, 0, hh)
			check(0, 1, hl)
			check(N-1, 0, hl)
			check(1, 1, ll)
			check(N-1, N-1, ll)
			check(1, 2, lm)
		}
	}
}

func TestEigenExpProperties(t *testing.T) {
	graphs := map[string]*laplacian.Graph{
		"weighted":     randomGraph(t, 60, 5, true, 1),
		"unweighted":   randomGraph(t, 80, 3, false, 2),
		"disconnected": mustGraph(t, 7, []laplacian.Edge{{U: 0, V: 1, Weight: 2}, {U: 1, V: 2, Weight: 0.5}, {U: 4, V: 5, Weight: 1}}),
		"path":         pathGraph(t, 30),
	}
	for name, g := range graphs {
		e, err := Decompose(g, DenseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := g.N()
		for i := 1; i < n; i++ {
			if e.Values[i] < e.Values[i-1] {
				t.Fatalf("%s: eigenvalues not ascending", name)
			}
		}
		// Q orthonormal.
		var qtq mat.Dense
		qtq.Mul(e.Vectors.T(), e.Vectors)
		if d := maxAbsDiff(&qtq, eye(n)); d > 1e-13 {
			t.Errorf("%s: ‖QᵀQ − I‖max = %g", name, d)
		}
		for _, tau := range []float64{0.1, 1, 5} {
			A := e.Exp(tau)
			tol := 1e-13 + e.ExpErrorBound(tau)
			for i := 0; i < n; i++ {
				row := 0.0
				for j := 0; j < n; j++ {
					v := A.At(i, j)
					row += v
					if v < -tol {
						t.Errorf("%s τ=%g: A[%d,%d] = %g < 0", name, tau, i, j, v)
					}
					if A.At(j, i) != v {
						t.Errorf("%s: not symmetric", name)
					}
				}
				if math.Abs(row-1) > tol*math.Sqrt(float64(n)) {
					t.Errorf("%s τ=%g: row %d sums to %v", name, tau, i, row)
				}
			}
			// Independent algorithm: gonum Padé.
			if d := maxAbsDiff(A, padeExp(g, tau)); d > tol {
				t.Errorf("%s τ=%g: dense vs Padé differ by %g (bound %g)", name, tau, d, tol)
			}
			// Semigroup exp(−sL)exp(−tL) = exp(−(s+t)L).
			var prod mat.Dense
			prod.Mul(e.Exp(tau/3), e.Exp(2*tau/3))
			if d := maxAbsDiff(&prod, A); d > 3*tol {
				t.Errorf("%s τ=%g: semigroup off by %g", name, tau, d)
			}
			// Scaled: G·Gᵀ = exp(−2τL).
			G := e.Scaled(tau)
			var ggt mat.Dense
			ggt.Mul(G, G.T())
			if d := maxAbsDiff(&ggt, e.Exp(2*tau)); d > 1e-13 {
				t.Errorf("%s τ=%g: GGᵀ vs Exp(2τ) %g", name, tau, d)
			}
		}
		if eb := e.EigenErrorBound(); !(eb > 0) || eb > 1e-9 {
			t.Errorf("%s: EigenErrorBound %g", name, eb)
		}
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

func TestDecomposeTooLarge(t *testing.T) {
	g := pathGraph(t, 11)
	_, err := Decompose(g, DenseOptions{Limit: 10})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.N != 11 || tl.Limit != 10 {
		t.Fatalf("got %v, want *TooLargeError{11, 10}", err)
	}
	if _, err := Decompose(g, DenseOptions{Limit: 11}); err != nil {
		t.Fatal(err)
	}
}

func TestLambdaMaxBound(t *testing.T) {
	graphs := []*laplacian.Graph{
		randomGraph(t, 50, 4, true, 3), randomGraph(t, 70, 8, false, 4),
		completeGraph(t, 9), starGraph(t, 15), pathGraph(t, 40),
		mustGraph(t, 4, []laplacian.Edge{{U: 0, V: 1, Weight: 1e-3}, {U: 2, V: 3, Weight: 50}}),
	}
	for i, g := range graphs {
		e, err := Decompose(g, DenseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lmax := e.Values[len(e.Values)-1]
		B := LambdaMaxBound(g)
		if B < lmax {
			t.Errorf("graph %d: B = %v < λ_max = %v", i, B, lmax)
		}
		if B > 2*g.MaxDegree()*(1+1e-11) {
			t.Errorf("graph %d: B = %v exceeds Gershgorin %v", i, B, 2*g.MaxDegree())
		}
	}
	// Closed forms: K_n has λ_max = n ≤ B = 2(n−1); the star has λ_max = N = B (Anderson–Morley is tight).
	if B := LambdaMaxBound(starGraph(t, 10)); B < 10 || B > 10*(1+1e-11) {
		t.Errorf("star: B = %v, want 10", B)
	}
	if B := LambdaMaxBound(mustGraph(t, 3, nil)); B != 0 {
		t.Errorf("edgeless: B = %v, want 0", B)
	}
}

package expm

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestChebyshevVsDense applies p_K(L) to the identity block, so the result
// is the whole matrix p̂_K(L), and checks ‖p̂_K(L) − exp(−τL)‖₂ (spectral
// norm, via SVD) against ErrorBound plus the dense path's own margin.
func TestChebyshevVsDense(t *testing.T) {
	graphs := map[string]*laplacian.Graph{
		"weighted":     randomGraph(t, 60, 6, true, 11),
		"unweighted":   randomGraph(t, 70, 4, false, 12),
		"sparse-split": randomGraph(t, 80, 1.2, true, 13), // several components
		"disconnected": mustGraph(t, 9, []laplacian.Edge{{U: 0, V: 1, Weight: 3}, {U: 1, V: 2, Weight: 0.2}, {U: 5, V: 6, Weight: 1}, {U: 6, V: 8, Weight: 7}}),
		"complete":     completeGraph(t, 15),
		"edgeless":     mustGraph(t, 5, nil),
	}
	for name, g := range graphs {
		n := g.N()
		e, err := Decompose(g, DenseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id := make([]float64, n*n)
		for i := 0; i < n; i++ {
			id[i*n+i] = 1
		}
		for _, tau := range []float64{0.01, 0.5, 2, 10} {
			for _, tol := range []float64{1e-2, 1e-5, 1e-9, 1e-12} {
				c, err := NewChebyshev(g.Laplacian(), tau, tol)
				var te *ToleranceError
				if errors.As(err, &te) {
					if !(te.Floor > tol) || te.Tol != tol {
						t.Errorf("%s τ=%g: %v", name, tau, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s τ=%g tol=%g: %v", name, tau, tol, err)
				}
				if c.ErrorBound() > tol {
					t.Errorf("%s: ErrorBound %g > tol %g", name, c.ErrorBound(), tol)
				}
				dst := make([]float64, n*n)
				c.Apply(dst, id, n)
				var diff mat.Dense
				diff.Sub(mat.NewDense(n, n, dst), e.Exp(tau))
				errNorm := spectralNorm(t, &diff)
				if bound := c.ErrorBound() + e.ExpErrorBound(tau); errNorm > bound {
					t.Errorf("%s τ=%g tol=%g K=%d: ‖p_K − exp‖₂ = %g > bound %g", name, tau, tol, c.Degree(), errNorm, bound)
				}
				// The exact-arithmetic truncation error on the spectrum.
				maxErr := 0.0
				for _, l := range e.Values {
					maxErr = math.Max(maxErr, math.Abs(math.Exp(-tau*l)-chebEval(c, l)))
				}
				if maxErr > c.TruncationBound()+1e-14 {
					t.Errorf("%s τ=%g tol=%g: spectral error %g > truncation bound %g", name, tau, tol, maxErr, c.TruncationBound())
				}
			}
		}
	}
}

// chebEval evaluates p_K(λ) = Σ c_k T_k(2λ/B − 1) by Clenshaw.
func chebEval(c *Chebyshev, l float64) float64 {
	co := c.Coefficients()
	if c.B() == 0 {
		return co[0]
	}
	y := 2*l/c.B() - 1
	var b1, b2 float64
	for k := len(co) - 1; k >= 1; k-- {
		b1, b2 = 2*y*b1-b2+co[k], b1
	}
	return y*b1 - b2 + co[0]
}

// TestChebyshevBlockAndParallel checks on a graph large enough for the
// parallel split that block application equals column-by-column
// application, x is untouched, mass is conserved, and concurrent use is safe.
func TestChebyshevBlockAndParallel(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		g := randomGraph(t, 6000, 8, weighted, 21)
		n := g.N()
		c, err := NewChebyshev(g.Laplacian(), 1.5, 1e-10)
		if err != nil {
			t.Fatal(err)
		}
		const b = 3
		rng := rand.New(rand.NewPCG(5, 5))
		x := make([]float64, n*b)
		for i := range x {
			x[i] = rng.Float64()
		}
		x0 := append([]float64(nil), x...)
		blk := make([]float64, n*b)
		c.Apply(blk, x, b)
		if !floats.Equal(x, x0) {
			t.Fatal("Apply modified x")
		}
		serial := make([]float64, n*b)
		c.WithWorkers(1).Apply(serial, x, b)
		if !floats.Equal(serial, blk) {
			t.Fatal("WithWorkers(1) differs from the parallel result")
		}
		var wg sync.WaitGroup
		cols := make([][]float64, b)
		for k := 0; k < b; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				xc := make([]float64, n)
				for i := range xc {
					xc[i] = x[i*b+k]
				}
				cols[k] = make([]float64, n)
				c.Apply(cols[k], xc, 1)
			}(k)
		}
		wg.Wait()
		for k := 0; k < b; k++ {
			in, out := 0.0, 0.0
			for i := 0; i < n; i++ {
				if d := math.Abs(cols[k][i] - blk[i*b+k]); d > 1e-13 {
					t.Fatalf("weighted=%v col %d row %d: block %v vs single %v", weighted, k, i, blk[i*b+k], cols[k][i])
				}
				in += x[i*b+k]
				out += cols[k][i]
			}
			// 1ᵀp_K(L)x − 1ᵀx = 1ᵀ(p_K(L) − exp(−τL))x ≤ √n·ErrorBound·‖x‖.
			xn := 0.0
			for i := 0; i < n; i++ {
				xn += x[i*b+k] * x[i*b+k]
			}
			if d := math.Abs(out - in); d > math.Sqrt(float64(n)*xn)*c.ErrorBound() {
				t.Errorf("mass not conserved: %v vs %v", out, in)
			}
		}
	}
}

func TestChebyshevEdgelessIsIdentity(t *testing.T) {
	g := mustGraph(t, 4, nil)
	c, err := NewChebyshev(g.Laplacian(), 3, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	if c.B() != 0 || c.Degree() != 0 || c.ErrorBound() != 0 {
		t.Errorf("B=%v K=%d bound=%v", c.B(), c.Degree(), c.ErrorBound())
	}
	x := []float64{1, -2, 3, 0.5}
	dst := make([]float64, 4)
	c.Apply(dst, x, 1)
	if !floats.Equal(dst, x) {
		t.Errorf("got %v", dst)
	}
}

func TestChebyshevValidation(t *testing.T) {
	op := pathGraph(t, 5).Laplacian()
	for _, tt := range []struct {
		name     string
		tau, tol float64
	}{
		{"tau", 0, 1e-6}, {"tau", -1, 1e-6}, {"tau", math.NaN(), 1e-6}, {"tau", math.Inf(1), 1e-6},
		{"tol", 1, 0}, {"tol", 1, 1}, {"tol", 1, -1e-3}, {"tol", 1, math.NaN()},
	} {
		_, err := NewChebyshev(op, tt.tau, tt.tol)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("τ=%v tol=%v: got %v, want *ParamError on %s", tt.tau, tt.tol, err, tt.name)
		}
	}
	// Below the rounding floor.
	_, err := NewChebyshev(randomGraph(t, 200, 30, true, 3).Laplacian(), 50, 1e-16)
	var te *ToleranceError
	if !errors.As(err, &te) || !(te.Floor > 1e-16) {
		t.Errorf("got %v, want *ToleranceError", err)
	}
}

func TestChebyshevApplyPanics(t *testing.T) {
	c, err := NewChebyshev(pathGraph(t, 5).Laplacian(), 1, 1e-8)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 10)
	for _, f := range []func(){
		func() { c.Apply(make([]float64, 5), x[:5], 0) },
		func() { c.Apply(make([]float64, 4), x[:5], 1) },
		func() { c.Apply(x[:5], x[:5], 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

// A column's result must not depend on the block it is applied in: the
// kernel's chunks of eight, four and the rest sum in one order, so shards
// and caches that apply different block widths agree bit for bit.
func TestChebyshevBlockWidthBitwise(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		g := randomGraph(t, 3000, 9, weighted, 33)
		n := g.N()
		c, err := NewChebyshev(g.Laplacian(), 1, 1e-10)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, 9))
		const wide = 21 // chunks 8, 8, 4 and 1
		x := make([]float64, n*wide)
		for i := range x {
			x[i] = rng.Float64() - 0.5
		}
		ref := make([]float64, n*wide)
		c.Apply(ref, x, wide)
		for _, b := range []int{2, 3, 4, 5, 8, 12} {
			for k0 := 0; k0+b <= wide; k0 += b {
				xb, out := make([]float64, n*b), make([]float64, n*b)
				for i := 0; i < n; i++ {
					copy(xb[i*b:i*b+b], x[i*wide+k0:i*wide+k0+b])
				}
				c.Apply(out, xb, b)
				for i := 0; i < n; i++ {
					for k := 0; k < b; k++ {
						if out[i*b+k] != ref[i*wide+k0+k] {
							t.Fatalf("weighted=%v b=%d column %d row %d: %v in a block of %d vs %v", weighted, b, k0+k, i, out[i*b+k], wide, ref[i*wide+k0+k])
						}
					}
				}
			}
		}
	}
}

package expm

import (
	"errors"
	"math"
	"testing"
)

func TestHeatKernel1D(t *testing.T) {
	for _, tt := range []struct {
		m, n int
		T    float64
	}{{1, 1, 0.1}, {8, 8, 1e-3}, {20, 10, 0.01}, {7, 30, 2}} {
		A, err := HeatKernel1D(tt.m, tt.n, tt.T)
		if err != nil {
			t.Fatal(err)
		}
		r, c := A.Dims()
		if r != tt.m || c != tt.n {
			t.Fatalf("dims %d×%d", r, c)
		}
		// Oracle: normal density with variance σ² = 2T.
		sigma := math.Sqrt(2 * tt.T)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				x := float64(i+1)/float64(tt.m) - float64(j+1)/float64(tt.n)
				want := math.Exp(-0.5*(x/sigma)*(x/sigma)) / (sigma * math.Sqrt(2*math.Pi))
				if d := math.Abs(A.At(i, j) - want); d > 1e-14*math.Max(1, want) {
					t.Errorf("%+v (%d,%d): %v want %v", tt, i, j, A.At(i, j), want)
				}
			}
		}
		// Shift invariance: with m = q·n, s_{i+q} − x_{j+1} = s_i − x_j.
		if tt.m%tt.n == 0 {
			q := tt.m / tt.n
			for i := 0; i+q < r; i++ {
				for j := 0; j+1 < c; j++ {
					if A.At(i+q, j+1) != A.At(i, j) {
						t.Errorf("%+v: not shift invariant at (%d,%d)", tt, i, j)
					}
				}
			}
		}
	}
}

func TestHeatKernel1DValidation(t *testing.T) {
	for _, tt := range []struct {
		m, n int
		T    float64
		name string
	}{{0, 5, 1, "m"}, {5, 0, 1, "n"}, {5, 5, 0, "T"}, {5, 5, -1, "T"}, {5, 5, math.NaN(), "T"}, {5, 5, math.Inf(1), "T"}} {
		_, err := HeatKernel1D(tt.m, tt.n, tt.T)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Name != tt.name {
			t.Errorf("%+v: got %v", tt, err)
		}
	}
}

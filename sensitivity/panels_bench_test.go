package sensitivity

import (
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func BenchmarkPanelStep(b *testing.B) {
	g, _, err := laplacian.Generate("pa:n=3000,m=3,seed=1")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		panelStepSeconds(g, true)
	}
}

func BenchmarkPanelCholesky(b *testing.B) {
	for b.Loop() {
		choleskySeconds(700)
	}
}

func BenchmarkGonumGemm1000(b *testing.B) {
	n := 1000
	x := make([]float64, n*n)
	y := make([]float64, n*n)
	z := make([]float64, n*n)
	for i := range x {
		x[i] = float64(i%13) * 0.1
		y[i] = float64(i%7) * 0.1
	}
	for b.Loop() {
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: x}, blas64.General{Rows: n, Cols: n, Stride: n, Data: y}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: z})
	}
}

func BenchmarkGonumSyrk1000(b *testing.B) {
	n := 1000
	x := make([]float64, n*n)
	z := make([]float64, n*n)
	for i := range x {
		x[i] = float64(i%13) * 0.1
	}
	for b.Loop() {
		blas64.Syrk(blas.Trans, -1, blas64.General{Rows: n, Cols: n, Stride: n, Data: x}, 1, blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: z})
	}
}

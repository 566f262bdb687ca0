package sensitivity

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// eigenSymRows factorizes the symmetric n×n row-major a with LAPACK's
// Dsyev (gonum's implementation: Dsytrd, Dorgtr, the implicit QL/QR
// iteration), overwriting a with the eigenvectors (columns), and returns
// the eigenvalues ascending. ok = false when the iteration did not
// converge. Nothing of it is trusted: §2.8's bracket certifies its output.
func eigenSymRows(n int, a []float64) ([]float64, bool) {
	s := blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper}
	w := make([]float64, n)
	work := make([]float64, 1)
	lapack64.Syev(lapack.EVCompute, s, w, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	return w, lapack64.Syev(lapack.EVCompute, s, w, work, len(work))
}

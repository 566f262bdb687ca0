// The implicit QL/QR iteration below is gonum's Dsteqr (lapack/gonum,
// v0.17.0), Copyright ©2016 The Gonum Authors, BSD-style licence, with
// one change: the plane rotations are applied to the eigenvector matrix
// row by row (rotateColumns) instead of rotation by rotation. gonum's
// Dlasr walks a column pair down all n rows of the row-major matrix per
// rotation, one cache line per element; on a 3 000-node Laplacian that
// made EigenSym with vectors take ~40 min, 20× its eigenvalues alone.

package sensitivity

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

const (
	steqrEps    = 0x1p-53
	steqrSafmin = 0x1p-1022
)

// steqrVectors is Dsteqr with compz = EVOrig: on entry d, e are the
// tridiagonal T = Qᵀ A Q and z (n×n row-major, stride ldz) is Q; on exit d
// holds A's eigenvalues ascending and z's columns the eigenvectors. work
// has length ≥ 2n − 2. ok = false when the iteration did not converge.
func steqrVectors(n int, d, e, z []float64, ldz int, work []float64) (ok bool) {
	if n <= 1 {
		return true
	}
	impl := gonum.Implementation{}

	eps := steqrEps
	eps2 := eps * eps
	safmin := steqrSafmin
	safmax := 1 / safmin
	ssfmax := math.Sqrt(safmax) / 3
	ssfmin := math.Sqrt(safmin) / eps2

	const maxit = 30
	nmaxit := n * maxit

	jtot := 0

	// Determine where the matrix splits and choose QL or QR iteration for each
	// block, according to whether top or bottom diagonal element is smaller.
	l1 := 0
	nm1 := n - 1

	type scaletype int
	const (
		down scaletype = iota + 1
		up
	)
	var iscale scaletype

	for {
		if l1 > n-1 {
			steqrSort(n, d, z, ldz)
			return true
		}
		if l1 > 0 {
			e[l1-1] = 0
		}
		var m int
		if l1 <= nm1 {
			for m = l1; m < nm1; m++ {
				test := math.Abs(e[m])
				if test == 0 {
					break
				}
				if test <= (math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1])))*eps {
					e[m] = 0
					break
				}
			}
		}
		l := l1
		lsv := l
		lend := m
		lendsv := lend
		l1 = m + 1
		if lend == l {
			continue
		}

		// Scale submatrix in rows and columns L to Lend
		anorm := impl.Dlanst(lapack.MaxAbs, lend-l+1, d[l:], e[l:])
		switch {
		case anorm == 0:
			continue
		case anorm > ssfmax:
			iscale = down
			// Pretend that d and e are matrices with 1 column.
			impl.Dlascl(lapack.General, 0, 0, anorm, ssfmax, lend-l+1, 1, d[l:], 1)
			impl.Dlascl(lapack.General, 0, 0, anorm, ssfmax, lend-l, 1, e[l:], 1)
		case anorm < ssfmin:
			iscale = up
			impl.Dlascl(lapack.General, 0, 0, anorm, ssfmin, lend-l+1, 1, d[l:], 1)
			impl.Dlascl(lapack.General, 0, 0, anorm, ssfmin, lend-l, 1, e[l:], 1)
		}

		// Choose between QL and QR.
		if math.Abs(d[lend]) < math.Abs(d[l]) {
			lend = lsv
			l = lendsv
		}
		if lend > l {
			jtot = steqrQL(n, l, lend, d, e, z, ldz, work, jtot, nmaxit)
		} else {
			jtot = steqrQR(n, l, lend, d, e, z, ldz, work, jtot, nmaxit)
		}

		// Undo scaling if necessary.
		switch iscale {
		case down:
			// Pretend that d and e are matrices with 1 column.
			impl.Dlascl(lapack.General, 0, 0, ssfmax, anorm, lendsv-lsv+1, 1, d[lsv:], 1)
			impl.Dlascl(lapack.General, 0, 0, ssfmax, anorm, lendsv-lsv, 1, e[lsv:], 1)
		case up:
			impl.Dlascl(lapack.General, 0, 0, ssfmin, anorm, lendsv-lsv+1, 1, d[lsv:], 1)
			impl.Dlascl(lapack.General, 0, 0, ssfmin, anorm, lendsv-lsv, 1, e[lsv:], 1)
		}

		// Check for no convergence to an eigenvalue after a total of n*maxit iterations.
		if jtot >= nmaxit {
			break
		}
	}
	for i := 0; i < n-1; i++ {
		if e[i] != 0 {
			return false
		}
	}
	return true
}

// rotateColumns is Dlasr(blas.Right, lapack.Variable, direct, m, n, c, s,
// a, lda): a ← a·P with P the product of the plane rotations (c_j, s_j) in
// the column planes (j, j+1), in order j = 0 … n−2 (Forward) or back. The
// rows are independent, so it walks each row once through the whole
// sequence (contiguous memory) and splits the rows between the cores; every
// entry sees the same operations in the same order as in Dlasr.
func rotateColumns(direct lapack.Direct, m, n int, c, s, a []float64, lda int) {
	if m == 0 || n < 2 {
		return
	}
	rows := func(r0, r1 int) {
		i := r0
		for ; i+4 <= r1; i += 4 {
			rotateRows4(direct, n, c, s, a[i*lda:i*lda+n], a[(i+1)*lda:(i+1)*lda+n], a[(i+2)*lda:(i+2)*lda+n], a[(i+3)*lda:(i+3)*lda+n])
		}
		for ; i < r1; i++ {
			row := a[i*lda : i*lda+n]
			rotateRows4(direct, n, c, s, row, nil, nil, nil)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || m*n < 1<<15 {
		rows(0, m)
		return
	}
	var wg sync.WaitGroup
	chunk := (m + workers - 1) / workers
	for r0 := 0; r0 < m; r0 += chunk {
		wg.Add(1)
		go func(r0, r1 int) {
			defer wg.Done()
			rows(r0, r1)
		}(r0, min(r0+chunk, m))
	}
	wg.Wait()
}

// eigenSymRows is mat.EigenSym's Factorize with vectors (LAPACK Dsyev:
// Dsytrd, Dorgtr, then the QL/QR iteration) on the symmetric n×n
// row-major a, which it overwrites with the eigenvectors (columns); it
// returns the eigenvalues ascending. Unlike gonum's it does not rescale a
// (a Laplacian's entries are far from over- and underflow) and it uses
// steqrVectors. ok = false when the iteration did not converge.
func eigenSymRows(n int, a []float64) ([]float64, bool) {
	impl := gonum.Implementation{}
	d := make([]float64, n)
	e := make([]float64, max(n-1, 1))
	tau := make([]float64, max(n-1, 1))
	work := make([]float64, 1)
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, -1)
	lw := max(int(work[0]), 2*n)
	impl.Dorgtr(blas.Upper, n, a, n, tau, work, -1)
	lw = max(lw, int(work[0]))
	work = make([]float64, lw)
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, lw)
	impl.Dorgtr(blas.Upper, n, a, n, tau, work, lw)
	if !steqrVectors(n, d, e, a, n, work) {
		return nil, false
	}
	return d, true
}

// rotateRows4 applies the rotation sequence to up to four rows at once
// (r1, r2, r3 may be nil): each row is a serial chain through the
// sequence, so four independent chains keep the floating-point units
// busy where one would wait on each result.
func rotateRows4(direct lapack.Direct, n int, c, s, r0, r1, r2, r3 []float64) {
	if r1 == nil {
		if direct == lapack.Forward {
			for j := 0; j < n-1; j++ {
				ct, st := c[j], s[j]
				t, t2 := r0[j+1], r0[j]
				r0[j+1], r0[j] = ct*t-st*t2, st*t+ct*t2
			}
			return
		}
		for j := n - 2; j >= 0; j-- {
			ct, st := c[j], s[j]
			t, t2 := r0[j+1], r0[j]
			r0[j+1], r0[j] = ct*t-st*t2, st*t+ct*t2
		}
		return
	}
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	if direct == lapack.Forward {
		a0, a1, a2, a3 := r0[0], r1[0], r2[0], r3[0]
		for j := 0; j < n-1; j++ {
			ct, st := c[j], s[j]
			b0, b1, b2, b3 := r0[j+1], r1[j+1], r2[j+1], r3[j+1]
			r0[j], r1[j], r2[j], r3[j] = st*b0+ct*a0, st*b1+ct*a1, st*b2+ct*a2, st*b3+ct*a3
			a0, a1, a2, a3 = ct*b0-st*a0, ct*b1-st*a1, ct*b2-st*a2, ct*b3-st*a3
		}
		r0[n-1], r1[n-1], r2[n-1], r3[n-1] = a0, a1, a2, a3
		return
	}
	a0, a1, a2, a3 := r0[n-1], r1[n-1], r2[n-1], r3[n-1]
	for j := n - 2; j >= 0; j-- {
		ct, st := c[j], s[j]
		b0, b1, b2, b3 := r0[j], r1[j], r2[j], r3[j]
		r0[j+1], r1[j+1], r2[j+1], r3[j+1] = ct*a0-st*b0, ct*a1-st*b1, ct*a2-st*b2, ct*a3-st*b3
		a0, a1, a2, a3 = st*a0+ct*b0, st*a1+ct*b1, st*a2+ct*b2, st*a3+ct*b3
	}
	r0[0], r1[0], r2[0], r3[0] = a0, a1, a2, a3
}

// steqrQL is the QL iteration of steqrVectors on the block l … lend
// (lend > l), verbatim from gonum's Dsteqr with the eigenvectors always
// updated; it returns the iteration count jtot.
func steqrQL(n, l, lend int, d, e, z []float64, ldz int, work []float64, jtot, nmaxit int) int {
	impl := gonum.Implementation{}
	eps2, safmin := steqrEps*steqrEps, steqrSafmin
	var m int
	// QL Iteration. Look for small subdiagonal element.
	for {
		if l != lend {
			for m = l; m < lend; m++ {
				v := math.Abs(e[m])
				if v*v <= (eps2*math.Abs(d[m]))*math.Abs(d[m+1])+safmin {
					break
				}
			}
		} else {
			m = lend
		}
		if m < lend {
			e[m] = 0
		}
		p := d[l]
		if m == l {
			// Eigenvalue found.
			l++
			if l > lend {
				break
			}
			continue
		}

		// If remaining matrix is 2×2, use Dlae2 to compute its eigensystem.
		if m == l+1 {
			d[l], d[l+1], work[l], work[n-1+l] = impl.Dlaev2(d[l], e[l], d[l+1])
			rotateColumns(lapack.Backward,
				n, 2, work[l:], work[n-1+l:], z[l:], ldz)
			e[l] = 0
			l += 2
			if l > lend {
				break
			}
			continue
		}

		if jtot == nmaxit {
			break
		}
		jtot++

		// Form shift
		g := (d[l+1] - p) / (2 * e[l])
		r := impl.Dlapy2(g, 1)
		g = d[m] - p + e[l]/(g+math.Copysign(r, g))
		s := 1.0
		c := 1.0
		p = 0.0

		// Inner loop
		for i := m - 1; i >= l; i-- {
			f := s * e[i]
			b := c * e[i]
			c, s, r = impl.Dlartg(g, f)
			if i != m-1 {
				e[i+1] = r
			}
			g = d[i+1] - p
			r = (d[i]-g)*s + 2*c*b
			p = s * r
			d[i+1] = g + p
			g = c*r - b

			// Save the rotations for the eigenvectors.
			work[i] = c
			work[n-1+i] = -s
		}
		// Apply the saved rotations to the eigenvectors.
		rotateColumns(lapack.Backward, n, m-l+1, work[l:], work[n-1+l:], z[l:], ldz)
		d[l] -= p
		e[l] = g
	}
	return jtot
}

// steqrQR is the QR iteration of steqrVectors on the block lend … l
// (lend ≤ l), verbatim from gonum's Dsteqr with the eigenvectors always
// updated; it returns the iteration count jtot.
func steqrQR(n, l, lend int, d, e, z []float64, ldz int, work []float64, jtot, nmaxit int) int {
	impl := gonum.Implementation{}
	eps2, safmin := steqrEps*steqrEps, steqrSafmin
	var m int
	// QR Iteration.
	// Look for small superdiagonal element.
	for {
		if l != lend {
			for m = l; m > lend; m-- {
				v := math.Abs(e[m-1])
				if v*v <= (eps2*math.Abs(d[m])*math.Abs(d[m-1]) + safmin) {
					break
				}
			}
		} else {
			m = lend
		}
		if m > lend {
			e[m-1] = 0
		}
		p := d[l]
		if m == l {
			// Eigenvalue found
			l--
			if l < lend {
				break
			}
			continue
		}

		// If remaining matrix is 2×2, use Dlae2 to compute its eigenvalues.
		if m == l-1 {
			d[l-1], d[l], work[m], work[n-1+m] = impl.Dlaev2(d[l-1], e[l-1], d[l])
			rotateColumns(lapack.Forward,
				n, 2, work[m:], work[n-1+m:], z[l-1:], ldz)
			e[l-1] = 0
			l -= 2
			if l < lend {
				break
			}
			continue
		}
		if jtot == nmaxit {
			break
		}
		jtot++

		// Form shift.
		g := (d[l-1] - p) / (2 * e[l-1])
		r := impl.Dlapy2(g, 1)
		g = d[m] - p + (e[l-1])/(g+math.Copysign(r, g))
		s := 1.0
		c := 1.0
		p = 0.0

		// Inner loop.
		for i := m; i < l; i++ {
			f := s * e[i]
			b := c * e[i]
			c, s, r = impl.Dlartg(g, f)
			if i != m {
				e[i-1] = r
			}
			g = d[i] - p
			r = (d[i+1]-g)*s + 2*c*b
			p = s * r
			d[i] = g + p
			g = c*r - b

			// Save the rotations for the eigenvectors.
			work[i] = c
			work[n-1+i] = s
		}

		// Apply the saved rotations to the eigenvectors.
		rotateColumns(lapack.Forward, n, l-m+1, work[m:], work[n-1+m:], z[m:], ldz)
		d[l] -= p
		e[l-1] = g
	}
	return jtot
}

// steqrSort orders the eigenvalues ascending and swaps the eigenvector
// columns with them (selection sort, as Dsteqr).
func steqrSort(n int, d, z []float64, ldz int) {
	bi := blas64.Implementation()
	for ii := 1; ii < n; ii++ {
		i := ii - 1
		k := i
		p := d[i]
		for j := ii; j < n; j++ {
			if d[j] < p {
				k = j
				p = d[j]
			}
		}
		if k != i {
			d[k] = d[i]
			d[i] = p
			bi.Dswap(n, z[i:], ldz, z[k:], ldz)
		}
	}
}

//go:build !purego

package sensitivity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestKernelsMatchGo: each AVX2 kernel gives the Go version's results bit
// for bit (the certification's rounding analysis is written for the Go
// version's operations), on unweighted and weighted rows including an
// empty row and a hub, with and without z, on values spanning many
// decades and of both signs, and on odd row counts.
func TestKernelsMatchGo(t *testing.T) {
	if !useAVX2 {
		t.Skip("this processor has no AVX2: the Go kernels run")
	}
	const b = columnBlock
	rng := rand.New(rand.NewPCG(7, 11))
	val := func() float64 { return (rng.Float64() - 0.5) * math.Pow(10, 6*rng.Float64()-3) }
	fill := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = val()
		}
		return v
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s[%d]: AVX2 %.17g, Go %.17g", what, i, got[i], want[i])
			}
		}
	}
	n := 300
	var edges []laplacian.Edge
	for j := 2; j < n; j++ { // node 0 a hub; node 1 isolated (an empty row)
		edges = append(edges, laplacian.Edge{U: 0, V: int32(j), Weight: 1})
	}
	for range 3 * n {
		u, v := 2+rng.IntN(n-2), 2+rng.IntN(n-2)
		if u != v {
			edges = append(edges, laplacian.Edge{U: int32(u), V: int32(v), Weight: 1})
		}
	}
	// Random pairs repeat: parallel edges whose weights add (the
	// multigraph the kernels were written against).
	multigraph := func(edges []laplacian.Edge) *laplacian.Graph {
		g, err := laplacian.FromEdges(n, nil, edges, laplacian.Options{Duplicates: laplacian.DuplicatesSum})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	unit := multigraph(edges)
	for i := range edges {
		edges[i].Weight = math.Pow(10, 6*rng.Float64()-3)
	}
	sub := rng.Perm(n)[:n/3] // rows in an arbitrary order, as a ball gives them
	idx := make([]int32, len(sub))
	for k, i := range sub {
		idx[k] = int32(i)
	}
	for _, g := range []*laplacian.Graph{unit, multigraph(edges)} {
		rowPtr, col, w := g.CSR()
		x := fill(n * b)
		a, c, e := val(), val(), val()
		for _, z := range [][]float64{nil, fill(n * b)} {
			for _, id := range [][]int32{nil, idx} {
				lo, hi := 3, n-5
				if id != nil {
					lo, hi = 2, len(id)-1
				}
				got, want := fill(n*b), make([]float64, n*b)
				copy(want, got)
				kernelRows(got, x, z, id, rowPtr, col, w, g.Degrees(), lo, hi, a, c, e)
				rowsGo(want, x, z, id, rowPtr, col, w, g.Degrees(), lo, hi, a, c, e)
				same("rows", got, want)
			}
		}
		// z aliasing dst, as the column scheme's kernel step allows.
		got, want := fill(n*b), make([]float64, n*b)
		copy(want, got)
		kernelRows(got, x, got, nil, rowPtr, col, w, g.Degrees(), 0, n, a, c, e)
		rowsGo(want, x, want, nil, rowPtr, col, w, g.Degrees(), 0, n, a, c, e)
		same("rows with z = dst", got, want)
	}
	for _, rows := range []int{0, 1, 7, 256} {
		w, x, p, om := fill(rows*b), fill(rows*b), fill(rows*b), fill(rows)
		for i := range om {
			om[i] = math.Abs(om[i])
		}
		var s1, s2, s3, v1, v2, v3 [b]float64
		for t := range b {
			s1[t], s2[t], s3[t] = val(), val(), val()
		}
		v1, v2, v3 = s1, s2, s3
		dotsAVX2(w, x, om, &s1, &s2, &s3)
		dotsGo(w, x, om, &v1, &v2, &v3)
		same("α", s1[:], v1[:])
		same("‖Lv‖²", s2[:], v2[:])
		same("Σωv²", s3[:], v3[:])

		var a, bp, bb, bb2 [b]float64
		for t := range b {
			a[t], bp[t] = val(), val()
		}
		w2 := append([]float64(nil), w...)
		axpy2AVX2(w, x, p, &a, &bp, &bb)
		axpy2Go(w2, x, p, &a, &bp, &bb2)
		same("w", w, w2)
		same("β²", bb[:], bb2[:])

		x2, p2 := append([]float64(nil), x...), append([]float64(nil), p...)
		var vn, vn2 [b]float64
		scaleShiftAVX2(w, x, p, &a, &vn)
		scaleShiftGo(w, x2, p2, &a, &vn2)
		same("x", x, x2)
		same("p", p, p2)
		same("‖v‖²", vn[:], vn2[:])

		var cs, cs2 [b]float64
		for t := range b {
			cs[t] = val()
		}
		cs2 = cs
		colSumsAVX2(w, &cs)
		colSumsGo(w, &cs2)
		same("column sums", cs[:], cs2[:])
		t2, acc, acc2 := append([]float64(nil), w...), fill(rows*b), []float64(nil)
		acc2 = append(acc2, acc...)
		ck := val()
		centerAccAVX2(w, acc, &cs, ck)
		centerAccGo(t2, acc2, &cs, ck)
		same("centred", w, t2)
		same("accumulated", acc, acc2)
	}
}

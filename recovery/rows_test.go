package recovery

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestRows: the rows model equals the selected rows of M (M·e_j read at
// the rows, an independent product with the full model) in all three
// forms, and its column norms are the sums of squares of those rows.
func TestRows(t *testing.T) {
	g, _ := laplacian.Karate()
	rows := []int{0, 5, 33, 7, 12}
	for _, form := range []Form{FormSpectral, FormDense} {
		full, err := NewGraphModel(g, 0.7, GraphOptions{Form: form})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := full.Rows(rows)
		if err != nil {
			t.Fatal(err)
		}
		if sub.M() != len(rows) || sub.N() != g.N() {
			t.Fatalf("dims %d×%d", sub.M(), sub.N())
		}
		n := g.N()
		col, fullCol, subCol := make([]float64, n), make([]float64, n), make([]float64, len(rows))
		norms, _ := sub.ColumnNorms2()
		for j := 0; j < n; j++ {
			clear(col)
			col[j] = 1
			full.Apply(fullCol, col)
			sub.Apply(subCol, col)
			want := 0.0
			for k, i := range rows {
				if math.Abs(subCol[k]-fullCol[i]) > 1e-12 {
					t.Errorf("form %v: M_S[%d,%d] = %v, M[%d,%d] = %v", form, k, j, subCol[k], i, j, fullCol[i])
				}
				want += fullCol[i] * fullCol[i]
			}
			if math.Abs(norms[j]-want) > 1e-12 {
				t.Errorf("form %v: column norm %d: %v, want %v", form, j, norms[j], want)
			}
		}
	}
	op, err := NewGraphModel(g, 0.7, GraphOptions{DenseLimit: 1}) // the operator form
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Rows(rows); err != nil {
		t.Errorf("operator form: %v", err)
	}
}

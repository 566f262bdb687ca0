package recovery

import (
	"errors"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A hub of thousands of links raises the heat action's certified rounding
// floor above the model's default tolerance (1e-10). With the default the
// model must still build — for twice the floor, as expm's Action does —
// and apply exp(−τL) within that bound, checked against the star graph's
// closed form: for a hub with m leaves, exp(−τL)e_hub = 1/(m+1) + O(e^{−τ(m+1)})
// everywhere, and exp(−τL)e_leaf = 1/(m+1) + e^{−τ}(e_leaf − 1_leaves/m)
// + O(e^{−τ(m+1)}). An explicit tolerance below the floor is refused.
func TestGraphModelOnAHubAboveTheRoundingFloor(t *testing.T) {
	const m, tau = 3000, 1.0
	edges := make([]laplacian.Edge, m)
	for i := range edges {
		edges[i] = laplacian.Edge{U: 0, V: int32(i + 1), Weight: 1}
	}
	g := mustGraph(t, m+1, edges)
	var te *expm.ToleranceError
	if _, err := expm.NewChebyshev(g.Laplacian(), tau, 1e-10); !errors.As(err, &te) {
		t.Fatalf("fixture: the star's floor does not exceed 1e-10 (err %v); the test checks nothing", err)
	}
	if _, err := NewGraphModel(g, tau, GraphOptions{ChebyshevTol: 1e-10}); !errors.As(err, &te) {
		t.Errorf("explicit tolerance below the floor: err %v, want a *expm.ToleranceError", err)
	}
	md, err := NewGraphModel(g, tau, GraphOptions{})
	if err != nil {
		t.Fatalf("default tolerance: %v", err)
	}
	op, err := expm.NewChebyshevOrFloor(g.Laplacian(), tau, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	bound := op.ErrorBound() + 1e-12 // and the closed form's own rounding
	if !(bound < 1e-6) {
		t.Fatalf("error bound %g: twice the floor should still be small", bound)
	}
	n := m + 1
	base := 1 / float64(n)
	for _, src := range []int{0, 1} {
		f := make([]float64, n)
		f[src] = 1
		got := make([]float64, n)
		md.Apply(got, f)
		sq := 0.0
		for i, x := range got {
			want := base
			if src == 1 && i > 0 {
				want -= math.Exp(-tau) / m
				if i == 1 {
					want += math.Exp(-tau)
				}
			}
			sq += (x - want) * (x - want)
		}
		if d := math.Sqrt(sq); d > bound {
			t.Errorf("column %d: ‖got − closed form‖ = %g exceeds the bound %g", src, d, bound)
		}
	}
}

package recovery

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// provenSilent counts the nodes whose column keepsNothing proves keeps no
// pair, each column computed on its own (blocks of 16 unit columns) and
// centred: the oracle of how many second actions a pass must run. None
// with a dense action (small graphs): it is applied whole.
func provenSilent(t *testing.T, g *laplacian.Graph, tau float64) int {
	t.Helper()
	tol := DefaultFitTolerance
	act, err := action(g, tau, tol, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := act.(*expm.Chebyshev); !ok {
		return 0
	}
	c := &Certifier{g: g, act: act, tau: tau, tol: tol, eta: act.ErrorBound()}
	cmin := candidateCos(tol)
	chord := math.Sqrt(2 - 2*cmin)
	n, silent := g.N(), 0
	const b = 16
	for lo := 0; lo < n; lo += b {
		w := min(b, n-lo)
		if w == 1 {
			lo, w = n-2, 2
		}
		x, y := make([]float64, n*w), make([]float64, n*w)
		for k := range w {
			x[(lo+k)*w+k] = 1
		}
		act.Apply(y, x, w)
		for k := range w {
			col := make([]float64, n)
			for i := range col {
				col[i] = y[i*w+k]
			}
			p, _, _ := centered(col)
			sq := 0.0
			for _, v := range p {
				sq += v * v
			}
			if c.keepsNothing(p, 1, 0, lo+k, math.Sqrt(sq), cmin, chord) {
				silent++
			}
		}
	}
	return silent
}

// TestSecondActionOnlyWhereAPairCanBe (issue 79): the pass runs the second
// action for exactly the columns that may keep a pair — none for a column
// keepsNothing proves silent, and no padding (a block's kept columns
// were once padded with silent ones to a multiple of 8) — and keeps bit
// for bit the pairs and norms of the pass that correlates every column
// (the one that fills Δ2's edge terms).
func TestSecondActionOnlyWhereAPairCanBe(t *testing.T) {
	pa, err := laplacian.PreferentialAttachment(1500, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	karate, _ := laplacian.Karate()
	graph := func(g *laplacian.Graph) func(*testing.T) *laplacian.Graph {
		return func(*testing.T) *laplacian.Graph { return g }
	}
	for _, tc := range []struct {
		name  string
		graph func(*testing.T) *laplacian.Graph
		tau   float64
	}{{"pa τ=1", graph(pa), 1}, {"karate τ=1", graph(karate), 1},
		{"power[:2000] τ=2", func(t *testing.T) *laplacian.Graph { return powerSubgraph(t, 2000) }, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			tc := struct {
				g   *laplacian.Graph
				tau float64
			}{tc.graph(t), tc.tau}
			ctx := context.Background()
			got, err := newCertifierPart(ctx, tc.g, tc.tau, CertifierOptions{}, passFull)
			if err != nil {
				t.Fatal(err)
			}
			want, err := newCertifierPart(ctx, tc.g, tc.tau, CertifierOptions{EdgeTerms: &EdgeTerms{}}, passFull)
			if err != nil {
				t.Fatal(err)
			}
			n := tc.g.N()
			if want.correlated != n {
				t.Fatalf("the pass for Δ2's terms correlated %d of %d columns", want.correlated, n)
			}
			if !slices.Equal(got.Norms, want.Norms) || !slices.Equal(got.Pairs, want.Pairs) {
				t.Fatalf("the pairs or norms differ from the pass that correlates every column (%d vs %d pairs)", len(got.Pairs), len(want.Pairs))
			}
			silent := provenSilent(t, tc.g, tc.tau)
			t.Logf("%d of %d columns proven silent; second action for %d", silent, n, got.correlated)
			if got.correlated != n-silent {
				t.Errorf("the second action ran for %d columns, want the %d not proven silent", got.correlated, n-silent)
			}
		})
	}
}

package recovery

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
)

// TestPassInTurnSameBits: on a graph large enough for the action to split
// its rows over two cores, the pass runs its actions one at a time
// (inTurn); its norms and pairs are bit for bit those of the same pass
// whose action runs on one core (its blocks then side by side).
func TestPassInTurnSameBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	n := 2000
	g := mustGraph(t, n, randomEdges(n, 8*n, rand.New(rand.NewPCG(79, 2))))
	ch, err := expm.NewChebyshev(g.Laplacian(), 1, DefaultFitTolerance*looseActionTol)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Workers() != 2 || ch.WithWorkers(1).Workers() != 1 {
		t.Fatalf("workers %d and %d: want 2 and 1 (a graph of %d nonzeros splits its rows)", ch.Workers(), ch.WithWorkers(1).Workers(), 2*g.NumEdges()+n)
	}
	run := func(act *expm.Chebyshev) ([]float64, []Pair) {
		c := &Certifier{g: g, act: act, tau: 1, tol: DefaultFitTolerance, eta: act.ErrorBound()}
		norm := make([]float64, n)
		pairs, err := c.pass(context.Background(), []int{0, 1, 2, 3, 4, 5, 61, 62}, norm, nil, nil, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return norm, pairs
	}
	norm2, pairs2 := run(ch)
	norm1, pairs1 := run(ch.WithWorkers(1))
	if !slices.Equal(norm1, norm2) || !slices.Equal(pairs1, pairs2) {
		t.Errorf("the pass in turns differs from the pass side by side: %d and %d pairs", len(pairs2), len(pairs1))
	}
	if slices.Max(norm2) == 0 {
		t.Error("no norm computed")
	}
}

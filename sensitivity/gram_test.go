package sensitivity

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestGramMatchesDense: the Gram scheme's Δ2 brackets the dense
// eigendecomposition's (an independent oracle: exp(−τL) from the
// eigenpairs, every edge's column difference) — Delta2 ≥ the oracle's
// lower end and Delta2 − Slack ≤ its upper end — is exact to well within
// ExactRelativeSlack where Δ2 is not tiny (an upper bound below), names an
// edge whose term is the maximum, and scales with α; at large τ too.
func TestGramMatchesDense(t *testing.T) {
	for _, c := range []struct {
		spec  string
		tau   float64
		alpha float64
	}{
		{"karate", 1, 1},
		{"pa:n=400,m=3,seed=2", 1, 1},
		{"pa:n=400,m=3,seed=2", 0.1, 2},
		{"sbm:sizes=80x80x80,pin=0.2,pout=0.01,seed=3", 5, 1},
		{"grid:rows=12,cols=15", 3, 1},
		{"rgg:n=300,radius=0.1,seed=4", 1, 1},
	} {
		g, _, err := laplacian.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		dense, err := Graph(g, c.tau, c.alpha, Options{Method: expm.Dense})
		if err != nil {
			t.Fatal(err)
		}
		gram, err := Graph(g, c.tau, c.alpha, Options{Method: expm.Sparse, Scheme: SchemeGram})
		if err != nil {
			t.Fatal(err)
		}
		// Exact where Δ2 is not tiny; below, its 4η margin is an honest
		// upper bound (the panels' and slow modes' regime).
		if gram.Method != "gram-columns" || !gram.Certified || gram.Exact != (dense.Delta2 > 1e-3) {
			t.Fatalf("%s τ=%g: %+v (dense %g)", c.spec, c.tau, gram, dense.Delta2)
		}
		if gram.Delta2 < dense.Delta2-dense.Slack || gram.Delta2-gram.Slack > dense.Delta2 {
			t.Errorf("%s τ=%g α=%g: Gram [%.15g, %.15g] misses the dense [%.15g, %.15g]", c.spec, c.tau, c.alpha,
				gram.Delta2-gram.Slack, gram.Delta2, dense.Delta2-dense.Slack, dense.Delta2)
		}
		if gram.Exact && gram.RelativeSlack > 1e-8 {
			t.Errorf("%s τ=%g: relative slack %g", c.spec, c.tau, gram.RelativeSlack)
		}
		// The named edge's own term, from the dense oracle's exp(−τL).
		e, err := expm.Decompose(g, expm.DenseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		M := e.Exp(c.tau)
		i, j := gram.Edge[0], gram.Edge[1]
		if !g.HasEdgeBetween(int64(i), int64(j)) {
			t.Fatalf("%s: maximising pair %d–%d is not an edge", c.spec, i, j)
		}
		q := 0.0
		for k := range g.N() {
			d := M.At(k, i) - M.At(k, j)
			q += d * d
		}
		if got := c.alpha * math.Sqrt(q); got < gram.Delta2-gram.Slack-1e-12 || got > gram.Delta2+1e-12 {
			t.Errorf("%s: the named edge's term %.15g is not the maximum [%.15g, %.15g]", c.spec, got, gram.Delta2-gram.Slack, gram.Delta2)
		}
	}
}

// TestGuessFirst: where the method is dense without a model the guess is
// ChooseMethod's own figure; on a graph with hubs (the Gram scheme not
// weighed) Δ2's time is not guessed without the pilot — only the model's
// own time, by the graph's edges.
func TestGuessFirst(t *testing.T) {
	small, _ := laplacian.Karate()
	if f, c := GuessFirst(small, 1, Options{}), ChooseMethod(small, 1, Options{}); !f.Modelled || f.Seconds != c.Seconds || c.Method != expm.Dense || f.ModelSeconds != 0 {
		t.Errorf("karate: %+v, ChooseMethod %+v: want the dense model's figure", f, c)
	}
	g, _, err := laplacian.Generate("pa:n=6000,m=3,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	if f := GuessFirst(g, 1, Options{}); f.Modelled || f.Seconds != 0 || f.ModelSeconds != modelFixedSeconds+modelEdgeSeconds*float64(g.NumEdges()) {
		t.Errorf("pa 6000: %+v, want no Δ2 guess and the model priced by its edges", f)
	}
}

package recovery

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// heldBlocks is a checkpoint holding the given blocks at T = 0.01, loose.
type heldBlocks []int

func (h heldBlocks) Finished(precise bool, tol float64) []PassBlock {
	var out []PassBlock
	for _, b := range h {
		out = append(out, PassBlock{Tol: tol, Precise: precise, Block: b, Norms: make([]float64, blockSize)})
	}
	return out
}
func (heldBlocks) Add(PassBlock) {}

// EstimatePass counts the sources of the pass it prices — every node and
// the refit sample for a whole pass, a shard's blocks only (no refit),
// less the blocks a checkpoint holds — and its steps are (S + C + 2R)·K·
// (2|E| + n) with S the blocks' sources, C ≤ S of them correlated, R the
// refit sample and K the loose action's degree (an independently built
// Chebyshev at tolerance 1e−5·T).
func TestEstimatePass(t *testing.T) {
	g, err := laplacian.PreferentialAttachment(1000, 3, 1) // 32 blocks, the last of 8 nodes
	if err != nil {
		t.Fatal(err)
	}
	ch, err := expm.NewChebyshev(g.Laplacian(), 1, DefaultFitTolerance*looseActionTol)
	if err != nil {
		t.Fatal(err)
	}
	K, nnz := ch.Degree(), float64(2*g.NumEdges()+g.N())
	for _, c := range []struct {
		name    string
		opt     CertifierOptions
		sources int
		refit   int
	}{
		{"whole", CertifierOptions{}, 1000, 256},
		{"shard 1/4", CertifierOptions{Shard: Shard{I: 1, N: 4}}, 8 * 32, 0},
		{"shard 3/4 (the short block)", CertifierOptions{Shard: Shard{I: 3, N: 4}}, 7*32 + 8, 0},
		{"whole, 3 blocks held", CertifierOptions{Checkpoint: heldBlocks{0, 5, 9}}, 1000 - 96, 256},
		{"shard 1/4, 2 of its blocks held", CertifierOptions{Shard: Shard{I: 1, N: 4}, Checkpoint: heldBlocks{1, 5, 6}}, 6 * 32, 0},
	} {
		pc, err := EstimatePass(g, 1, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(c.sources+pc.Correlated+2*c.refit) * float64(K) * nnz
		if pc.Sources != c.sources+c.refit || pc.Correlated < 0 || pc.Correlated > c.sources || pc.Degree != K || pc.Steps != want {
			t.Errorf("%s: %+v; want %d sources, 0 … %d correlated, K = %d, %g steps", c.name, pc, c.sources+c.refit, c.sources, K, want)
		}
	}
}

// EstimatePass prices the pass the certificate runs: its precision (the
// hubs' probe decides it) and its action's degree are the certifier's —
// where the loose action suffices (karate's dense one, preferential
// attachment's series: the probe's loose action reused) and where every source is too weak for it
// (weakBlock: the precise action built).
func TestEstimatePassPricesTheCertifiersAction(t *testing.T) {
	karate, _ := laplacian.Karate()
	pa, err := laplacian.PreferentialAttachment(1500, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*laplacian.Graph{"karate": karate, "pa": pa, "weak block": weakBlock(t)} {
		c, err := NewCertifier(context.Background(), g, 1, CertifierOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pc, err := EstimatePass(g, 1, CertifierOptions{})
		if err != nil {
			t.Fatal(err)
		}
		K := 0 // dense (karate): no series
		if ch, ok := c.act.(*expm.Chebyshev); ok {
			K = ch.Degree()
		}
		if pc.Precise != c.Precise() || pc.Degree != K {
			t.Errorf("%s: priced precise %v at K = %d; the certifier ran precise %v at K = %d", name, pc.Precise, pc.Degree, c.Precise(), K)
		}
	}
}

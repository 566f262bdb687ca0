package recovery

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/internal/heattest"
)

// TestEdgeTermsBracketTheOracle checks the pass's by-product against an
// independent heat kernel (Padé, heattest): every edge's bracket holds
// q_ij = ‖exp(−τL)(e_i − e_j)‖², computed as a sum of squares of the
// oracle's columns, on the certifier's graphs at every τ it accepts — with
// the loose action it starts with and with the precise one. A term read
// from the wrong row or column, or a margin without the norms' share, misses.
func TestEdgeTermsBracketTheOracle(t *testing.T) {
	ctx := context.Background()
	for _, tc := range certCases(t) {
		for _, tau := range tc.taus {
			for _, precise := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/tau=%g/precise=%v", tc.name, tau, precise), func(t *testing.T) {
					terms := &EdgeTerms{}
					_, err := NewCertifier(ctx, tc.g, tau, CertifierOptions{Precise: precise, EdgeTerms: terms})
					var mre *ModelRangeError
					if errors.As(err, &mre) {
						t.Skipf("τ refused from the graph: %v", err)
					}
					if err != nil {
						t.Fatal(err)
					}
					if !terms.Complete() {
						t.Fatal("an unsharded pass left its edge terms incomplete")
					}
					E := heattest.PadeHeat(tc.g, tau)
					n := tc.g.N()
					worst, widest, top := 0.0, 0.0, 0.0
					tc.g.ForEachEdge(func(i, j int, _ float64) {
						q := 0.0
						for k := range n {
							d := E.At(k, i) - E.At(k, j)
							q += d * d
						}
						lo, up, ok := terms.Bracket(i, j)
						if !ok {
							t.Fatalf("edge (%d, %d): no bracket", i, j)
						}
						// The oracle's own error: ~1e−15 an entry.
						slack := 1e-13 * math.Max(q, 1e-3)
						if q < lo-slack || q > up+slack {
							t.Errorf("edge (%d, %d): q = %.17g outside [%.17g, %.17g]", i, j, q, lo, up)
						}
						worst = math.Max(worst, math.Max(lo-q, q-up))
						widest, top = math.Max(widest, up-lo), math.Max(top, q)
					})
					if _, _, ok := terms.Bracket(0, 0); ok {
						t.Error("a node paired with itself got a bracket")
					}
					t.Logf("max q %.6g, widest bracket %.3g", top, widest)
				})
			}
		}
	}
}

// TestEdgeTermsOfAResumedPassAreIncomplete: a pass that took blocks from a
// checkpoint did not see their correlations, so it offers no brackets.
func TestEdgeTermsOfAResumedPassAreIncomplete(t *testing.T) {
	ctx := context.Background()
	g := certCases(t)[1].g // pa300: ten blocks
	cp := &memCheckpoint{}
	if _, err := NewCertifier(ctx, g, 1, CertifierOptions{Checkpoint: cp}); err != nil {
		t.Fatal(err)
	}
	terms := &EdgeTerms{}
	if _, err := NewCertifier(ctx, g, 1, CertifierOptions{Checkpoint: cp, EdgeTerms: terms}); err != nil {
		t.Fatal(err)
	}
	if terms.Complete() {
		t.Fatal("a resumed pass claims every column")
	}
	if _, _, ok := terms.Bracket(0, 1); ok {
		t.Error("an incomplete pass gave a bracket")
	}
}

// memCheckpoint keeps a pass's blocks in memory. Add is called from the
// pass's workers at once, as answer.Checkpoint's is: it locks.
type memCheckpoint struct {
	mu     sync.Mutex
	blocks []PassBlock
}

func (m *memCheckpoint) Finished(precise bool, tol float64) []PassBlock {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.blocks
}

func (m *memCheckpoint) Add(b PassBlock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blocks = append(m.blocks, b)
}

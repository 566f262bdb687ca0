package answer

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// The audit one answer at a time (auditByAnswer, where the table of every
// node's probabilities does not fit) finds what the audit from that table
// finds and what the search per node and edge end it replaces found: the
// same worst loss, own terms and accuracy to the bit, the 90 % set's
// statistics to rounding. On karate at τ = 1 and at τ = 5 (classes
// merged: the quotient), for the envelope (cap chosen), the geometric
// mechanism (cap 2) and randomized response, at three ε.
func TestAuditByAnswerIsTheAudit(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	workers := max(1, runtime.GOMAXPROCS(0))
	for _, tau := range []float64{1, 5} {
		m, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0.5, 2, 8} {
			for _, capDist := range []int{0, 2, 1} {
				t.Run(fmt.Sprintf("tau=%g/eps=%g/cap=%d", tau, eps, capDist), func(t *testing.T) {
					cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, 1, capDist)
					if err != nil {
						t.Fatal(err)
					}
					want, err := m.audit(ctx, cal) // the table fits: auditEdges
					if err != nil {
						t.Fatal(err)
					}
					perNode := &Audit{}
					cg := m.Geometry
					if err := m.auditEdges(ctx, cal, perNode, func(v int) []float64 { return logProbabilities(cal, cg, v) }, workers); err != nil {
						t.Fatal(err)
					}
					got := &Audit{}
					ok, err := m.auditByAnswer(ctx, cal, got, workers)
					if err != nil || !ok {
						t.Fatalf("auditByAnswer: ok %v, %v", ok, err)
					}
					for _, a := range []*Audit{perNode, got} {
						sameAudit(t, want, a)
					}
				})
			}
		}
	}
}

func sameAudit(t *testing.T, want, got *Audit) {
	t.Helper()
	bits := math.Float64bits
	if bits(got.WorstLoss) != bits(want.WorstLoss) || bits(got.Accuracy) != bits(want.Accuracy) {
		t.Fatalf("worst loss %v, accuracy %v; want %v, %v", got.WorstLoss, got.Accuracy, want.WorstLoss, want.Accuracy)
	}
	for s, p := range want.own {
		if bits(got.own[s]) != bits(p) {
			t.Fatalf("own term of node %d: %v, want %v", s, got.own[s], p)
		}
	}
	if math.Abs(got.In90Rate-want.In90Rate) > 1e-12 || math.Abs(got.In90Size-want.In90Size) > 1e-12 {
		t.Fatalf("in90 %v, %v; want %v, %v", got.In90Rate, got.In90Size, want.In90Rate, want.In90Size)
	}
}

package answer

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// The audit's 90 % set statistics are the brute force's: for every node,
// its class's published distribution (privacy.ProbabilitiesAt, one search
// per node — not the audit's spreads) weighs each answer's 90 % set (the
// posterior's most probable communities up to 0.9, sorted here by hand),
// counting the node's own community in it and the set's size. On karate
// at τ = 1 (no classes merged) and τ = 5 (merged: the quotient).
func TestAuditIn90IsBruteForce(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	for _, tau := range []float64{1, 5} {
		m, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0.5, 2, 8} {
			t.Run(fmt.Sprintf("tau=%g/eps=%g", tau, eps), func(t *testing.T) {
				cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, 1, 0)
				if err != nil {
					t.Fatal(err)
				}
				a, err := m.Audit(ctx, cal)
				if err != nil {
					t.Fatal(err)
				}
				k := m.Geometry.K()
				sets := make([]map[int]bool, k)
				for o := range sets {
					post := cal.AnswerPosterior(m.Geometry, o)
					idx := make([]int, k)
					for c := range idx {
						idx[c] = c
					}
					sort.SliceStable(idx, func(x, y int) bool { return post[idx[x]] > post[idx[y]] })
					sets[o] = map[int]bool{}
					for total, i := 0.0, 0; i < k && total < 0.9; i++ {
						sets[o][idx[i]] = true
						total += post[idx[i]]
					}
				}
				rate, size := 0.0, 0.0
				for s := range g.N() {
					for o, p := range cal.ProbabilitiesAt(m.Geometry, m.node(s)) {
						if c := m.community[s]; c >= 0 && sets[o][c] {
							rate += p
						}
						size += p * float64(len(sets[o]))
					}
				}
				rate, size = rate/float64(g.N()), size/float64(g.N())
				if math.Abs(a.In90Rate-rate) > 1e-12 || math.Abs(a.In90Size-size) > 1e-12 {
					t.Errorf("audit in90 %v, size %v; brute force %v, %v", a.In90Rate, a.In90Size, rate, size)
				}
			})
		}
	}
}

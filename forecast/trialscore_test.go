package forecast

import (
	"fmt"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// TestPoolScorerMatchesRun scores every trial of a pool both ways — the
// scorer's passes and graphTrials.run's recovery, ranking, scores and
// verdict — at noise levels and masses from pure noise to a sharp
// posterior, with every sensor and with missing ones, and asks for the
// same score to the bit: the scorer is the general path computed once.
func TestPoolScorerMatchesRun(t *testing.T) {
	g, part, err := laplacian.Generate("sbm:sizes=" + sizes(20, 90) + ",pin=0.05,pout=0.001,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	var answered, flagged, named, noise int
	for _, missing := range []float64{0, 0.1} {
		base := Simulation{Graph: g, Partition: part, Tau: 0.3, Sigma: 1, Trials: 64, Seed: 5, Missing: missing}
		pool, err := NewTrialPool(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, sigma := range []float64{0.02, 0.3, 2} {
			for _, m := range []float64{0, 0.3, 3, 30, 300} {
				e := base
				e.Pool, e.Sigma, e.noEMD, e.zeroMass = pool, sigma, true, m == 0
				if m > 0 {
					e.SourceMass = m
				}
				e.verdicts = newVerdictTests(e.Seed, part)
				est, err := e.check()
				if err != nil {
					t.Fatal(err)
				}
				cpart, names, _, err := e.communities()
				if err != nil {
					t.Fatal(err)
				}
				tr, err := e.newGraphTrials(est, cpart, names, sigma)
				if err != nil {
					t.Fatal(err)
				}
				if tr.fast == nil {
					t.Fatal("no scorer for a pool's posterior trials")
				}
				slow := *tr
				slow.fast = nil
				for k := range e.Trials {
					got, ok := tr.fast.score(tr, k, tr.mass)
					if !ok {
						t.Fatalf("missing %g σ %g mass %g trial %d: the scorer declined", missing, sigma, m, k)
					}
					want, _, err := slow.run(k)
					if err != nil {
						t.Fatal(err)
					}
					if g, w := scoreBits(got), scoreBits(want); g != w {
						t.Fatalf("missing %g σ %g mass %g trial %d:\n got %s\nwant %s", missing, sigma, m, k, g, w)
					}
					answered += btoi(want.verdictMass > 0)
					noise += btoi(want.verdictMass == 0)
					flagged += btoi(want.flagged)
					named += int(want.comm)
				}
			}
		}
	}
	// Both verdicts, both flags and right and wrong rankings were compared.
	if answered == 0 || noise == 0 || flagged == 0 || named == 0 {
		t.Fatalf("too narrow a test: %d verdict masses, %d noise, %d flagged, %d right", answered, noise, flagged, named)
	}
}

// scoreBits prints a score with its numbers' bits.
func scoreBits(s graphScore) string {
	b := math.Float64bits
	return fmt.Sprintf("comm %x exact %x share %x emd %x none %v in90 %v size90 %d flagged %v src %d mass %x named %d",
		b(s.comm), b(s.exact), b(s.share), b(s.emd), s.none, s.in90, s.size90, s.flagged, s.srcComm, b(s.verdictMass), s.named)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

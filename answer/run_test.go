package answer

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestAnswerChargesAndAnswers: a private answer charges ε²/2 before it
// draws, publishes a community of the partition, and at a large ε names the
// source's community (recovery on noiseless readings is exact on this SBM).
func TestAnswerChargesAndAnswers(t *testing.T) {
	g, part, err := laplacian.Generate("sbm:sizes=40x40x40,pin=0.25,pout=0.01,seed=5")
	if err != nil {
		t.Fatal(err)
	}
	act, err := expm.NewAction(g, 1, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for trial, src := range []int{3, 45, 100, 77, 12} {
		f0 := make([]float64, g.N())
		f0[src] = 1
		y := make([]float64, g.N())
		act.Apply(y, f0, 1)
		led := ledger(t, 100, 1e-6)
		res, err := Run(context.Background(), Request{Graph: g, Values: y, Tau: 1, Epsilon: 12, Partition: part,
			Ledger: led, Scope: "s", Epoch: "e"})
		if err != nil {
			t.Fatal(err)
		}
		bal, _ := led.Balance(context.Background(), "s")
		if len(bal) != 1 || math.Abs(bal[0].RhoSpent-12) > 1e-9 || bal[0].PureEpsilonSpent != 12 {
			t.Fatalf("trial %d: charged %+v, want ρ = min(ε²/2, ε) = 12 and the answer's ε = 12", trial, bal)
		}
		if res.CommunityID == part[src] {
			right++
		}
		if !res.ExactSource {
			t.Errorf("trial %d: readings of one source at %d not recognised as exact", trial, src)
		}
		if res.Posterior == nil || len(res.Posterior.Communities) != 3 {
			t.Fatalf("trial %d: posterior %+v", trial, res.Posterior)
		}
		// A second answer in the same epoch is refused: charged once.
		if _, err := Run(context.Background(), Request{Graph: g, Values: y, Tau: 1, Epsilon: 12, Partition: part,
			Ledger: led, Scope: "s", Epoch: "e"}); !errors.Is(err, privacy.ErrAlreadyCharged) {
			t.Fatalf("trial %d: a second answer in one epoch: %v", trial, err)
		}
	}
	// P(right) ≥ e^12/(e^12 + 2) > 0.9999 per trial.
	if right != 5 {
		t.Fatalf("right community in %d of 5 answers at ε = 12", right)
	}
}

func TestAnswerRefusesBadInput(t *testing.T) {
	g, part, _ := laplacian.Generate("sbm:sizes=10x10,pin=0.5,pout=0.1,seed=1")
	y := make([]float64, g.N())
	if _, err := Run(context.Background(), Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Partition: part,
		Ledger: ledger(t, 10, 1e-6), Scope: "s", Epoch: "e"}); err == nil {
		t.Fatal("all-zero readings answered")
	}
	y[0] = 1
	if _, err := Run(context.Background(), Request{Graph: g, Values: y, Tau: 1, Epsilon: -1, Partition: part,
		Ledger: ledger(t, 10, 1e-6), Scope: "s", Epoch: "e"}); err == nil {
		t.Fatal("ε = −1 answered")
	}
}

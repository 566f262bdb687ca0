package job

import (
	"context"
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// --refuse-at-chance: a release forecast to name the right community no
// more often than chance is refused after Δ2 and before the ledger is
// charged (exit 3, no noise drawn, no values stored); a release whose
// forecast beats chance goes through and carries its forecast.
func TestRefuseAtChance(t *testing.T) {
	ctx := context.Background()
	run := func(eps float64) (*fixture, *Summary, error) {
		f := newFixture(t)
		s := f.spec("r1")
		s.RefuseAtChance, s.ForecastTrials, s.Epsilon = true, 60, eps
		p, err := PlanRelease(ctx, s, f.env())
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Execute(ctx, p)
		return f, sum, err
	}
	f, _, err := run(0.05) // σ far above the readings' differences
	var ac *AtChanceError
	if !errors.As(err, &ac) || errkind.Of(err) != errkind.BadInput || f.mem.Charges() != 0 {
		t.Fatalf("ε = 0.05: %v (kind %v), %d charges; want the at-chance refusal, nothing charged", err, errkind.Of(err), f.mem.Charges())
	}
	if pn := ac.Forecasts.PerNode; !pn.AtChance || pn.Low > pn.Chance {
		t.Fatalf("refused on a forecast that is not at chance: %+v", pn)
	}
	if keys, _ := f.mem.Stored("r1"); len(keys) != 0 {
		t.Fatal("the refused release stored values")
	}
	if runs := f.mem.Runs(); len(runs) != 1 || runs[0].Status != "failed" {
		t.Fatalf("runs %+v; want the one claimed run, failed", runs)
	}
	f, sum, err := run(8)
	if err != nil {
		t.Fatalf("ε = 8: %v", err)
	}
	if sum.Forecast == nil || sum.Forecast.PerNode.AtChance || f.mem.Charges() != 1 {
		t.Fatalf("ε = 8: forecast %+v, %d charges; want a forecast above chance and one charge", sum.Forecast, f.mem.Charges())
	}
}

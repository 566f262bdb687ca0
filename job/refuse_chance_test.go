package job_test

import (
	"context"
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"

	. "github.com/graphcloak/graphcloak/job"
)

// --refuse-at-chance: a release forecast to name the right community no
// more often than chance is refused after Δ2 and before the ledger is
// charged (exit 3, no noise drawn, no values stored); a release whose
// forecast beats chance goes through and carries its forecast.
func TestRefuseAtChance(t *testing.T) {
	ctx := context.Background()
	run := func(eps float64) (*fixture, *ReleaseSummary, error) {
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

// TestRefuseAtChanceReadsNoReadings (issue 48, item 1): the verdict a
// release is refused on depends on public inputs only — the graph, τ, ε,
// δ, σ, a seeded simulation and a source mass the operator states — never
// on the readings: a refusal decided on them would tell something about
// them by the act of refusing. The same release with readings of no
// source, the fixture's and a thousand times those is refused (or not)
// with the same message, with and without a stated mass, by the dry run
// and by the release.
func TestRefuseAtChanceReadsNoReadings(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		eps, mass float64
		refused   bool
	}{{0.05, 0, true}, {8, 0, false}, {0.05, 1, true}, {8, 1000, false}} {
		var first string
		for i, scale := range []float64{0, 1, 1000} {
			for _, dry := range []bool{true, false} {
				f := newFixture(t)
				s := f.spec("r1")
				s.RefuseAtChance, s.ForecastTrials, s.Epsilon, s.SourceMass, s.DryRun = true, 60, c.eps, c.mass, dry
				env := f.env()
				load := env.Load
				env.Load = func(ctx context.Context) (*Input, error) {
					in, err := load(ctx)
					for j := range in.Readings {
						in.Readings[j] *= scale
					}
					return in, err
				}
				p, err := PlanRelease(ctx, s, env)
				if err == nil && !dry {
					_, err = Execute(ctx, p)
				}
				var ac *AtChanceError
				got := "released"
				if errors.As(err, &ac) {
					got = err.Error()
				} else if err != nil {
					t.Fatalf("ε = %g, mass %g, readings ×%g: %v", c.eps, c.mass, scale, err)
				}
				if (got != "released") != c.refused {
					t.Errorf("ε = %g, mass %g, readings ×%g, dry run %v: %s; want refused %v", c.eps, c.mass, scale, dry, got, c.refused)
				}
				if i == 0 && dry {
					first = got
				} else if got != first {
					t.Errorf("ε = %g, mass %g: the readings ×%g (dry run %v) changed the decision:\n%s\nagainst\n%s", c.eps, c.mass, scale, dry, got, first)
				}
			}
		}
	}
}

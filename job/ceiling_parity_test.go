package job_test

import (
	"context"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"

	. "github.com/graphcloak/graphcloak/job"
)

// TestDryRunCeilingIsPlans: the dry run of a release and plan at its ε
// and δ print one ceiling for one graph and partition (plan's routed
// bound, one code path). Before, the dry run printed the star bound alone
// (on the power grid 0.767 where plan said 0.712; on karate's Leiden
// communities at ε = 1, δ = 10⁻⁵ the two differ in the second digit).
func TestDryRunCeilingIsPlans(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	cg, perm, err := CanonicalGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	cpart, err := community.Leiden(cg, community.LeidenOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, g.N()) // in g's order, as a loader reads it
	for i := range part {
		part[i] = cpart[perm[i]]
	}
	for _, eps := range []float64{1, 4} {
		f := newFixture(t)
		f.graph = g
		s := f.spec("r1")
		s.DryRun, s.ForecastTrials, s.Epsilon, s.Delta, s.Tau = true, 20, eps, 1e-5, 1
		s.Neo4j = false
		env := f.env()
		env.Backend = nil
		load := env.Load
		env.Load = func(ctx context.Context) (*Input, error) {
			in, err := load(ctx)
			if err == nil {
				in.Partition = part
			}
			return in, err
		}
		p, err := PlanRelease(ctx, s, env)
		if err != nil {
			t.Fatal(err)
		}
		dry := p.Summary.Forecast.PerNode.Ceiling
		rep, err := Forecast(ctx, ForecastSpec{GraphName: "karate", CommunitiesKind: "file",
			Simulation: forecast.Simulation{Graph: cg, Partition: cpart, Tau: 1, Delta: 1e-5, Alpha: 1, Sources: 1, Trials: 8,
				Estimator: recovery.Default, Seed: 1},
			Epsilons: []float64{eps}, Modes: []string{forecast.ModePerNode}, FitTolerance: recovery.DefaultFitTolerance})
		if err != nil {
			t.Fatal(err)
		}
		plan := rep.Result.Forecasts[0].Ceiling
		star := forecast.Ceiling(cg, cpart, eps, 1e-5)
		t.Logf("ε = %g: dry run %.4f, plan %.4f (star bound %.4f)", eps, dry, plan, star)
		if math.Abs(dry-plan) >= 0.0005 {
			t.Errorf("ε = %g: the dry run's ceiling %.4f, plan's %.4f", eps, dry, plan)
		}
	}
}

package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/job"
)

// RunRelease plans the release on s and, unless it is a dry run,
// executes it; readings are the raw readings by node key (nil: the
// configured value property). A dry run reads the ledger and the epoch's
// earlier run as the release would, so it is refused where the release
// would be; it returns the plan's summary (nil without a plan), as does a
// plan refused.
func (s *Stores) RunRelease(ctx context.Context, spec job.ReleaseSpec, readings map[string]float64, env job.Env) (*job.ReleaseSummary, error) {
	env = s.Env(env, spec.Neo4j)
	// The partition the forecasts score: a file is always read (and
	// refused when it does not fit the graph); one computed or read from
	// the database only when a forecast will score it.
	var c Communities
	if named := parseCommunities(spec.Communities); named.Kind == "file" || spec.DryRun || spec.RefuseAtChance || spec.SmoothAuto {
		c = Communities{Kind: named.Kind, Arg: named.Arg, Resolution: 1, Seed: int64(spec.ForecastSeed)}
	}
	env.Load = func(ctx context.Context) (*job.Input, error) {
		return s.ReleaseInput(ctx, spec.Graph, spec.Projection.ValueProperty, readings, c)
	}
	plan, err := job.PlanRelease(ctx, spec, env)
	if plan == nil {
		return nil, err
	}
	if err != nil || spec.DryRun {
		return plan.Summary, err
	}
	return job.Execute(ctx, plan)
}

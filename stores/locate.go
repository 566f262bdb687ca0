package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
)

// Locate opens the stores opt asks for, takes the release run's
// projection and record into spec when opt names a release run, plans the
// localisation on them (its graph, released values and the communities c
// read through the stores) and, unless it is a dry run, executes it; env
// brings the job's logger, progress, bookkeeping and local outputs. A dry
// run returns the plan's summary (nil without a plan).
func Locate(ctx context.Context, cfg *config.Loaded, spec job.LocateSpec, c Communities, opt Options, env job.Env) (*job.LocateSummary, error) {
	st, err := Open(ctx, cfg, opt)
	if err != nil {
		return nil, err
	}
	defer st.Close(opt.bookkeeping(ctx))
	if st.Release != nil {
		spec.Projection = st.Projection
		spec.Release, spec.ReleaseDigest, spec.ReleaseHint = st.Release, st.ReleaseDigest, st.ReleaseHint()
	}
	env = st.Env(env, spec.Neo4j)
	env.LoadReleased = func(ctx context.Context, prop string) (*job.Input, error) {
		return st.LocateInput(ctx, spec.Graph, c, prop)
	}
	plan, err := job.PlanLocate(ctx, spec, env)
	if plan == nil {
		return nil, err
	}
	if err != nil || spec.DryRun {
		return plan.Summary, err
	}
	return job.ExecuteLocate(ctx, plan)
}

package stores

import (
	"context"
	"encoding/json"

	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// RunLocate takes the projection and record of the release run s has
// read (if any) into spec, plans the localisation on s (its graph,
// released values and the communities c read through the stores) and,
// unless it is a dry run, executes it; env brings the job's logger,
// progress, bookkeeping and local outputs. A dry run returns the plan's
// summary (nil without a plan).
func (s *Stores) RunLocate(ctx context.Context, spec job.LocateSpec, c Communities, env job.Env) (*job.LocateSummary, error) {
	if s.Release != nil {
		spec.Projection = s.Projection
		spec.Release, spec.ReleaseDigest, spec.ReleaseHint = s.Release, s.ReleaseDigest, s.ReleaseHint()
	}
	env = s.Env(env, spec.Neo4j)
	partial := s.Release != nil && collectedWithMissing(s.Release.ReleaseMeta)
	env.LoadReleased = func(ctx context.Context, prop string) (*job.Input, error) {
		return s.locateInput(ctx, spec.Graph, c, LoadOptions{ValueProperty: prop, AllowMissingValues: partial})
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

// collectedWithMissing reports whether a release run's metadata is of a
// collected local release with sensors that did not report: their nodes
// have no value, read as NaN and left out (job.CheckReleasedValues).
func collectedWithMissing(meta string) bool {
	var m privacy.ReleaseMeta
	return meta != "" && json.Unmarshal([]byte(meta), &m) == nil && len(m.Missing) > 0
}

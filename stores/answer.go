package stores

import (
	"context"

	"github.com/graphcloak/graphcloak/job"
)

// RunAnswer plans the private answer on s (its graph, the communities c
// and the raw readings: the configured value property read with the
// graph or, when readings is not nil, what it reads) and, unless it is a
// dry run, executes it; env brings the job's logger, progress and
// bookkeeping. A dry run reads no readings (whether they fit the model is
// the charged run's to decide: a free answer to "does this fit?" would
// tell where the source is) and returns the plan's summary.
func (s *Stores) RunAnswer(ctx context.Context, spec job.AnswerSpec, c Communities, readings func() (map[string]float64, error), env job.Env) (*job.AnswerSummary, error) {
	env = s.Env(env, spec.Neo4j)
	env.Load = func(ctx context.Context) (*job.Input, error) {
		if spec.DryRun {
			return s.LocateInput(ctx, spec.Graph, c, "")
		}
		return s.AnswerInput(ctx, spec.Graph, c, readings)
	}
	plan, err := job.PlanAnswer(ctx, spec, env)
	if err != nil {
		return nil, err
	}
	if spec.DryRun {
		return plan.Summary, nil
	}
	return job.ExecuteAnswer(ctx, plan)
}

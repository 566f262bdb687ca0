package service

import (
	"context"
	"log/slog"

	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// Backend is what a slot's steps need of the stores opened once for the
// service: a release, the scope's last release, a localisation on a
// release and a private answer, each logged by the step (env.Logger, or
// logger). OnStores is the one on the database; a test's in memory is
// another, so that Steps are tested without Neo4j.
type Backend interface {
	Release(ctx context.Context, spec job.ReleaseSpec, readings map[string]float64, env job.Env) (*job.ReleaseSummary, error)
	// LastRelease is the run id of the scope's newest succeeded release,
	// or "" when there is none.
	LastRelease(ctx context.Context, logger *slog.Logger) (string, error)
	// Locate locates on releaseRun, its record read again.
	Locate(ctx context.Context, releaseRun string, spec job.LocateSpec, c stores.Communities, env job.Env) (*job.LocateSummary, error)
	Answer(ctx context.Context, spec job.AnswerSpec, c stores.Communities, readings func() (map[string]float64, error), env job.Env) (*job.AnswerSummary, error)
}

// OnStores is the Backend of st: each step on a view of st that logs to
// the step's logger (stores.Stores.WithLogger). The caller closes st.
func OnStores(st *stores.Stores) Backend { return storesBackend{st} }

type storesBackend struct{ st *stores.Stores }

func (b storesBackend) Release(ctx context.Context, spec job.ReleaseSpec, readings map[string]float64, env job.Env) (*job.ReleaseSummary, error) {
	return b.st.WithLogger(env.Logger).RunRelease(ctx, spec, readings, env)
}

func (b storesBackend) LastRelease(ctx context.Context, logger *slog.Logger) (string, error) {
	return b.st.WithLogger(logger).LastRelease(ctx)
}

func (b storesBackend) Locate(ctx context.Context, releaseRun string, spec job.LocateSpec, c stores.Communities, env job.Env) (*job.LocateSummary, error) {
	s, err := b.st.WithLogger(env.Logger).WithRelease(ctx, releaseRun)
	if err != nil {
		return nil, err
	}
	return s.RunLocate(ctx, spec, c, env)
}

func (b storesBackend) Answer(ctx context.Context, spec job.AnswerSpec, c stores.Communities, readings func() (map[string]float64, error), env job.Env) (*job.AnswerSummary, error) {
	return b.st.WithLogger(env.Logger).RunAnswer(ctx, spec, c, readings, env)
}

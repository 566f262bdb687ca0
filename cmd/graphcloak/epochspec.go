package main

import (
	"context"

	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// What epoch open and serve --open-epochs share: an epoch's spec and the
// stores it is opened on (Stores.OpenEpoch).

// epochSpec is the job spec of an epoch of in (stores.EpochInputs.Spec)
// completed from its key files and checked (jobfiles.ReadEpochInputs),
// before anything is opened.
func epochSpec(g *globalOptions, in stores.EpochInputs, epoch string) (job.ReleaseSpec, error) {
	spec := in.Spec(&g.cfg.Config, epoch)
	if err := jobfiles.ReadEpochInputs(&g.cfg.Config, &spec); err != nil {
		return job.ReleaseSpec{}, err
	}
	return spec, nil
}

// openEpochStores opens the stores the epochs of spec are opened on: Neo4j
// when the graph or the ledger is there, the ledger to charge.
func openEpochStores(ctx context.Context, g *globalOptions, spec job.ReleaseSpec, after *job.Bookkeeping) (*stores.Stores, error) {
	cfg := &g.cfg.Config
	st, err := stores.Open(ctx, g.cfg, storesOptions(g, after, stores.Options{Neo4j: spec.Neo4j || cfg.Privacy.Ledger == "neo4j", Ledger: stores.ReadWrite}))
	return st, withInitHint(cfg, err)
}

// jobEnv is the environment the commands give a job: their logger,
// progress and messages.
func jobEnv(g *globalOptions) job.Env {
	return job.Env{Logger: g.logger, Progress: g.progress, Say: g.say}
}

// runEnv is jobEnv for a run of release, locate or a private answer: it
// also tells of the answer's pass and of steps without counts, and keeps
// its books (the failure record, the balance) under after's deadline.
func runEnv(g *globalOptions, after *job.Bookkeeping) job.Env {
	env := jobEnv(g)
	env.PassStarted, env.Phase, env.Bookkeeping = g.passStarted, g.phase, after.Context
	return env
}

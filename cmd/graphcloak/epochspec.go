package main

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// What epoch open and serve --open-epochs share: the epoch's spec from the
// flags and the stores an epoch is opened on (Stores.OpenEpoch).

// epochSpec is the job spec of an epoch from the configuration (τ, α,
// ε, δ, scope, the ledger) and the Δ2 source, read and checked as a
// release's is (inputfiles.ReadReleaseInputs); the classic mechanism is
// refused (sensors draw the discrete Gaussian).
func epochSpec(g *globalOptions, graph, cert, cache string, timeBudget time.Duration, epoch string) (job.ReleaseSpec, error) {
	cfg := &g.cfg.Config
	spec := job.ReleaseSpec{Graph: graph, Neo4j: graph == stores.Neo4jSpec, Database: cfg.Neo4j.Database,
		WriteProperty: cfg.Write.WriteProperty, LedgerKind: cfg.Privacy.Ledger, Scope: cfg.Privacy.Scope, Epoch: epoch,
		Tau: cfg.Privacy.Tau, Alpha: cfg.Privacy.Alpha, Epsilon: cfg.Privacy.Epsilon, Delta: cfg.Privacy.Delta,
		CertificatePath: cert, CachePath: cache, TimeBudget: timeBudget, Software: buildinfo.Read().String()}
	spec.Projection = cfg.Neo4jProjection()
	spec.ValuesFrom = "property:" + spec.Projection.ValueProperty
	if err := inputfiles.ReadReleaseInputs(cfg, &spec); err != nil {
		return job.ReleaseSpec{}, err
	}
	if m, err := privacy.ReleaseMechanism(spec.Mechanism); err == nil && !m.AtSensor { // privacy's mechanism table says
		return job.ReleaseSpec{}, inputErrorf("--mechanism %s is not offered in local mode: sensors draw the discrete Gaussian of the default mechanism", m.Name)
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

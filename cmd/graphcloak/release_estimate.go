package main

import (
	"context"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// runReleaseEstimate is release --estimate (with or without --dry-run):
// the graph is loaded and the release's long steps are modelled
// (cost.Release). The readings are not read; nothing is computed,
// written or charged, and the ledger is not opened.
func runReleaseEstimate(ctx context.Context, opts *releaseOptions, out io.Writer) error {
	g := opts.g
	spec, err := releaseSpec(opts)
	if err != nil {
		return err
	}
	start := time.Now()
	lg, err := loadExperimentGraph(ctx, g, spec.Graph, "")
	if err != nil {
		return err
	}
	gr := lg.Graph
	e := cost.NewEstimate("release", spec.Graph, gr, spec.Tau+spec.Smooth, start)
	if spec.DryRun {
		e.Command = "release --dry-run"
	}
	e.Add(cost.Loaded(time.Since(start)))
	if err := cost.Release(e, releaseWork(ctx, opts, &spec, lg)); err != nil {
		return err
	}
	return printWorkEstimate(g, out, e)
}

// releaseWork is what the release of spec on lg will run, as cost.Release
// models it.
func releaseWork(ctx context.Context, opts *releaseOptions, spec *job.ReleaseSpec, lg *stores.Graph) cost.ReleaseWork {
	taus := []float64{spec.Tau + spec.Smooth}
	if spec.SmoothAuto {
		taus = taus[:0]
		for _, m := range job.SmoothCandidates {
			taus = append(taus, spec.Tau*(1+m))
		}
	}
	return cost.ReleaseWork{Taus: taus, SmoothAuto: spec.SmoothAuto, DryRun: spec.DryRun, RefuseAtChance: spec.RefuseAtChance,
		CertGiven: opts.sensitivityCert != "", Cached: spec.CachePath != "", TimeBudget: spec.TimeBudget,
		Held:  func(tau float64) bool { return spec.HeldSensitivity(nil, lg.Graph, tau) != nil },
		Graph: lg.Graph, Alpha: spec.Alpha, Delta: spec.Delta, Estimator: spec.Estimator, Seed: spec.ForecastSeed, Trials: spec.ForecastTrials,
		SourceMass: spec.SourceMass, Neo4j: spec.Neo4j, Name: flagName,
		Partition: func() ([]int, error) { return forecastPartition(ctx, spec, lg) }}
}

// forecastPartition is the partition the release's forecasts score: the
// release's communities, else Leiden's.
func forecastPartition(ctx context.Context, spec *job.ReleaseSpec, lg *stores.Graph) ([]int, error) {
	kind := spec.Communities
	if kind == "" {
		kind = "leiden"
	}
	_, part, _, err := lg.ScoredPartition(ctx, kind, 1, spec.ForecastSeed)
	return part, err
}

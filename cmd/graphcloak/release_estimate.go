package main

import (
	"context"
	"io"
	"time"
)

// runReleaseEstimate is release --estimate (with or without --dry-run):
// the graph is loaded and the release's long steps are modelled
// (job.ReleaseSpec.Estimate, by cost.Release). The readings are not read;
// nothing is computed, written or charged, and the ledger is not opened.
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
	partition := func() ([]int, error) { return lg.ForecastPartition(ctx, spec.Communities, spec.ForecastSeed) }
	e, err := spec.Estimate(lg.Graph, start, time.Since(start), partition, flagName)
	if err != nil {
		return err
	}
	return printWorkEstimate(g, out, e)
}

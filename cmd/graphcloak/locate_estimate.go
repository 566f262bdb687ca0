package main

import (
	"context"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/job"
)

// runLocateEstimate is locate --estimate: the graph is loaded (and the
// release file read for its σ and τ) and the localisation's long steps
// are modelled (cost.Locate, of the spec's job.LocateSpec.CostWork or
// job.AnswerSpec.CostWork). Nothing is located, charged or written, and no
// readings, keys or ledger are read.
func runLocateEstimate(ctx context.Context, opts *locateOptions, out io.Writer) error {
	g := opts.g
	// The flags are checked as the localisation (or the answer) checks them.
	var answer *job.AnswerSpec
	var in *locateInputs
	var err error
	if opts.privateAnswer.enabled {
		answer, err = checkPrivateAnswer(opts)
	} else {
		in, err = checkLocate(opts)
	}
	if err != nil {
		return err
	}
	tau, sigma, releaseID, err := locateEstimateInputs(opts)
	if err != nil {
		return err
	}
	start := time.Now()
	lg, err := loadExperimentGraph(ctx, g, opts.graph, "")
	if err != nil {
		return err
	}
	gr := lg.Graph
	e := cost.NewEstimate("locate", opts.graph, gr, tau, start)
	e.Add(cost.Loaded(time.Since(start)))
	w := cost.LocateWork{}
	if answer != nil {
		e.Command = "locate --private-answer"
		reused := jobfiles.AuditReused(&g.cfg.Config, answer.CachePath, opts.privateAnswer.cacheDir, g.logger, gr, tau, answer.Certifier(gr.N()), flagName)
		w = answer.CostWork(gr, sigma, reused)
	} else {
		w = in.spec.CostWork(gr, tau, sigma)
		w.ForecastHeld = in.spec.ForecastHeld(gr, releaseID) // a localisation's forecast the store holds
	}
	if err := cost.Locate(e, w); err != nil {
		return err
	}
	return printWorkEstimate(g, out, e)
}

// locateEstimateInputs are the τ and σ a localisation's estimate prices
// its trials at: the release file's when one is named (and its release
// id, which names the forecast the store may hold), else the configured
// τ and σ (--sigma; the sample σ when none).
func locateEstimateInputs(opts *locateOptions) (tau, sigma float64, releaseID string, err error) {
	g := opts.g
	tau, sigma = g.cfg.Privacy.Tau, opts.sigma
	if opts.released != "" && !opts.privateAnswer.enabled {
		rel, err := job.ReadReleased(opts.released)
		if err != nil {
			return 0, 0, "", err
		}
		tau, sigma, releaseID = rel.Meta.Tau+rel.Meta.Smooth, rel.Meta.Sigma, rel.Meta.ReleaseID
	}
	return tau, sigma, releaseID, nil
}

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
	// The release file (10⁵ rows: 0.25 s of a core) is read while the
	// graph loads, which needs the other core: --estimate answers in ≤ 1 s.
	inputs := make(chan estimateInputs, 1)
	go func() { inputs <- locateEstimateInputs(opts) }()
	start := time.Now()
	lg, err := loadExperimentGraph(ctx, g, opts.graph, "")
	rel := <-inputs
	if rel.err != nil {
		return rel.err
	}
	if err != nil {
		return err
	}
	gr, tau, sigma, releaseID := lg.Graph, rel.tau, rel.sigma, rel.releaseID
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

// estimateInputs are the τ, σ and release id a localisation's estimate
// prices its trials at (locateEstimateInputs).
type estimateInputs struct {
	tau, sigma float64
	releaseID  string
	err        error
}

// locateEstimateInputs are the τ and σ a localisation's estimate prices
// its trials at: the release file's when one is named (and its release
// id, which names the forecast the store may hold), else the configured
// τ and σ (--sigma; the sample σ when none).
func locateEstimateInputs(opts *locateOptions) estimateInputs {
	g := opts.g
	in := estimateInputs{tau: g.cfg.Privacy.Tau, sigma: opts.sigma}
	if opts.released != "" && !opts.privateAnswer.enabled {
		rel, err := job.ReadReleased(opts.released)
		if err != nil {
			return estimateInputs{err: err}
		}
		in.tau, in.sigma, in.releaseID = rel.Meta.Tau+rel.Meta.Smooth, rel.Meta.Sigma, rel.Meta.ReleaseID
	}
	return in
}

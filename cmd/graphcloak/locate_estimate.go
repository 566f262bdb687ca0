package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/stores"
)

// runLocateEstimate is locate --estimate: the graph is loaded (and the
// release file read for its σ and τ) and the localisation's long steps
// are modelled — community detection, the forecast's simulated releases,
// the write-back; with --private-answer the answer audit's pass and the
// answer's forecast. Nothing is located, charged or written, and no
// readings, keys or ledger are read.
func runLocateEstimate(ctx context.Context, opts *locateOptions, out io.Writer) error {
	g := opts.g
	// The flags are checked as the localisation (or the answer) checks them.
	if opts.privateAnswer.enabled {
		if _, err := checkPrivateAnswer(opts); err != nil {
			return err
		}
	} else if _, err := checkLocate(opts); err != nil {
		return err
	}
	tau, sigma, err := locateEstimateInputs(opts)
	if err != nil {
		return err
	}
	start := time.Now()
	lg, err := loadExperimentGraph(ctx, g, opts.graph, "")
	if err != nil {
		return err
	}
	gr := lg.Graph
	e := newWorkEstimate("locate", opts.graph, gr, tau, start)
	if opts.privateAnswer.enabled {
		e.Command = "locate --private-answer"
	}
	e.add(loadedStep(time.Since(start)))
	if kind, _, _ := strings.Cut(opts.communities, ":"); kind == "leiden" || kind == "louvain" {
		sec := community.DetectionSeconds(gr.NumEdges())
		e.add(estimateStep{Step: "communities", Seconds: sec,
			Model: fmt.Sprintf("%d relationships at about %g µs each on the reference machine", gr.NumEdges(), community.DetectionMicrosPerEdge)})
	}
	if opts.privateAnswer.enabled {
		if err := answerSteps(g, opts, gr, tau, e); err != nil {
			return err
		}
	} else if opts.forecastTrials > 0 && gr.NumEdges() > 0 {
		sim := forecast.Simulation{Graph: gr, Tau: tau, Sigma: sigma, Sources: max(g.cfg.Recovery.Sources, 1),
			Estimator: g.cfg.Recovery.Estimator, Seed: uint64(g.cfg.Write.RandomSeed), Mechanism: privacy.MechanismDefault}
		if c, ok := timeTrials(sim); ok {
			// forecast.AtMass: the verdict's rounds (forecast.PerNode), no time budget.
			per := c.perTrial(opts.forecastTrials)
			e.add(estimateStep{Step: "forecast trials", Seconds: job.VerdictForecastSeconds(opts.forecastTrials, per),
				Model: fmt.Sprintf("%d round(s) of %d trials at %.3g s a trial, timed on %d trials of this graph (σ = %g)", job.ForecastRounds, opts.forecastTrials, per, c.Done, c.Sigma)})
		}
	}
	if opts.graph == stores.Neo4jSpec && opts.mode != "stream" && !opts.dryRun && !opts.privateAnswer.enabled {
		e.add(writeBackStep(4 * gr.N())) // mass, community, probability, rank
	}
	return e.print(g, out)
}

// locateEstimateInputs are the τ and σ a localisation's estimate prices
// its trials at: the release file's when one is named, else the
// configured τ and σ (--sigma; the sample σ when none).
func locateEstimateInputs(opts *locateOptions) (tau, sigma float64, err error) {
	g := opts.g
	tau, sigma = g.cfg.Privacy.Tau, opts.sigma
	if opts.released != "" && !opts.privateAnswer.enabled {
		rel, err := job.ReadReleased(opts.released)
		if err != nil {
			return 0, 0, err
		}
		tau, sigma = rel.Meta.Tau+rel.Meta.Smooth, rel.Meta.Sigma
	}
	return tau, sigma, nil
}

// answerSteps adds a private answer's modelled steps: the answer audit
// (none when --answer-cache holds a certificate that verifies) and the
// answer's forecast.
func answerSteps(g *globalOptions, opts *locateOptions, gr *laplacian.Graph, tau float64, e *workEstimate) error {
	o := &opts.privateAnswer
	opt := recovery.CertifierOptions{Tol: o.fitTolerance, SensorNoise: o.sensorNoise.at(gr.N())}
	reused, where := false, "the certificate at --answer-cache verifies"
	if o.cache != "" {
		if cache, err := inputfiles.AnswerCache(&g.cfg.Config, o.cache); err == nil {
			_, _, err := cache.Load(gr, tau, opt)
			reused = err == nil
		}
	} else if w, err := workStore(g, o.cacheDir); err == nil {
		if cache := w.Answer(gr, tau, opt.Tol, opt.SensorNoise); cache != nil {
			_, _, err := cache.Load(gr, tau, opt)
			reused, where = err == nil, "reused from the store: the certificate kept there verifies"
		}
	}
	if reused {
		e.add(estimateStep{Step: "answer audit", Model: where})
	} else {
		st, err := auditStep(gr, tau, opt)
		if err != nil {
			return err
		}
		e.add(st)
	}
	if opts.forecastTrials > 0 && gr.NumEdges() > 0 {
		sim := forecast.Simulation{Graph: gr, Tau: tau, Sources: 1, Estimator: g.cfg.Recovery.Estimator,
			Seed: uint64(g.cfg.Write.RandomSeed), Mechanism: privacy.MechanismDefault}
		if c, ok := timeTrials(sim); ok {
			e.add(trialsStep("private-answer forecast", opts.forecastTrials, opts.forecastTrials, c))
		}
	}
	return nil
}

package main

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/cost"
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
// are modelled (cost.Locate). Nothing is located, charged or written, and no
// readings, keys or ledger are read.
func runLocateEstimate(ctx context.Context, opts *locateOptions, out io.Writer) error {
	g := opts.g
	// The flags are checked as the localisation (or the answer) checks them.
	var in *locateInputs // a localisation's: the store that holds its forecast
	var err error
	if opts.privateAnswer.enabled {
		_, err = checkPrivateAnswer(opts)
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
	if opts.privateAnswer.enabled {
		e.Command = "locate --private-answer"
	}
	e.Add(cost.Loaded(time.Since(start)))
	kind, _, _ := strings.Cut(opts.communities, ":")
	w := cost.LocateWork{Detects: kind == "leiden" || kind == "louvain", PrivateAnswer: opts.privateAnswer.enabled,
		Forecast: forecast.Simulation{Graph: gr, Tau: tau, Sigma: sigma, Sources: max(g.cfg.Recovery.Sources, 1), Trials: opts.forecastTrials,
			Estimator: g.cfg.Recovery.Estimator, Seed: uint64(g.cfg.Write.RandomSeed), Mechanism: privacy.MechanismDefault},
		WriteBack: opts.graph == stores.Neo4jSpec && opts.mode != "stream" && !opts.dryRun && !opts.privateAnswer.enabled}
	if in != nil {
		w.ForecastHeld = in.spec.ForecastHeld(gr, releaseID)
	}
	if w.PrivateAnswer {
		o := &opts.privateAnswer
		w.Certifier = recovery.CertifierOptions{Tol: o.fitTolerance, SensorNoise: o.sensorNoise.at(gr.N())}
		w.AuditReused = auditReused(g, o, gr, tau, w.Certifier)
	}
	if err := cost.Locate(e, w); err != nil {
		return err
	}
	return printWorkEstimate(g, out, e)
}

// locateEstimateInputs are the τ and σ a localisation's estimate prices
// its trials at: the release file's when one is named, else the
// configured τ and σ (--sigma; the sample σ when none).
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

// auditReused says why a private answer's audit on gr at τ with opt
// runs no pass — the certificate at --answer-cache, or the store's,
// verifies — and is "" when it runs one.
func auditReused(g *globalOptions, o *answerOptions, gr *laplacian.Graph, tau float64, opt recovery.CertifierOptions) string {
	if o.cache != "" {
		if cache, err := inputfiles.AnswerCache(&g.cfg.Config, o.cache); err == nil {
			if _, _, err := cache.Load(gr, tau, opt); err == nil {
				return "the certificate at --answer-cache verifies"
			}
		}
	} else if w, err := workStore(g, o.cacheDir); err == nil {
		if cache := w.Answer(gr, tau, opt.Tol, opt.SensorNoise); cache != nil {
			if _, _, err := cache.Load(gr, tau, opt); err == nil {
				return "reused from the store: the certificate kept there verifies"
			}
		}
	}
	return ""
}

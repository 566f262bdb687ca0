package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/graphcloak/graphcloak/stores"
)

// writeBackPropsPerSecond is the reference rate of a write-back to Neo4j:
// 2.5–2.6·10⁵ node properties a second (docs/results.md, "Neo4j
// write-back", 10⁵ nodes, 4 properties each).
const writeBackPropsPerSecond = 2.5e5

// writeBackStep is the write-back of props node properties to Neo4j.
func writeBackStep(props int) estimateStep {
	return estimateStep{Step: "write-back", Seconds: float64(props) / writeBackPropsPerSecond,
		Model: fmt.Sprintf("%d node properties at the reference %.2g a second", props, float64(writeBackPropsPerSecond))}
}

// runReleaseEstimate is release --estimate (with or without --dry-run):
// the graph is loaded and the release's long steps are modelled — Δ2
// (the dry run computes it only when modelled under 10 s), the dry run's
// forecasts (the unit forecast, the private answer's, the forecast by
// source mass) or --refuse-at-chance's, the write-back — each by its
// step's model (estimate.go). The readings are not read; nothing is
// computed, written or charged, and the ledger is not opened.
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
	e := newWorkEstimate("release", spec.Graph, gr, spec.Tau+spec.Smooth, start)
	if spec.DryRun {
		e.Command = "release --dry-run"
	}
	e.add(loadedStep(time.Since(start)))
	if err := releaseSteps(ctx, opts, &spec, lg, e); err != nil {
		return err
	}
	return e.print(g, out)
}

// releaseSteps adds a release's modelled steps on lg to e.
func releaseSteps(ctx context.Context, opts *releaseOptions, spec *job.ReleaseSpec, lg *stores.Graph, e *workEstimate) error {
	gr := lg.Graph
	taus := []float64{spec.Tau + spec.Smooth}
	if spec.SmoothAuto {
		taus = taus[:0]
		for _, m := range job.SmoothCandidates {
			taus = append(taus, spec.Tau*(1+m))
		}
	}
	releaseSeconds := 0.0 // the model of the released τ's Δ2
	for i, tau := range taus {
		st := delta2Step(gr, tau, sensitivity.Options{TimeBudget: spec.TimeBudget})
		if i == 0 {
			releaseSeconds = st.Seconds
		}
		switch {
		case opts.sensitivityCert != "":
			st.Seconds, st.Model = 0, "given: --sensitivity-cert (verified, not computed)"
		case spec.DryRun && st.Seconds >= 10 && !spec.SmoothAuto:
			st.Model = fmt.Sprintf("not computed by the dry run (modelled %s, over 10 s): it shows the proven bound α√2 and σ for it", seconds(st.Seconds))
			st.Seconds = 0
		case spec.CachePath != "":
			st.Model += "; nothing when --sensitivity-cache holds a certificate that verifies"
		}
		e.add(st)
	}
	if spec.ForecastTrials > 0 && gr.NumEdges() > 0 && (spec.DryRun || spec.RefuseAtChance || spec.SmoothAuto) {
		sim := forecast.Simulation{Graph: gr, Tau: taus[0], Alpha: spec.Alpha, Delta: spec.Delta, Sources: 1,
			Estimator: spec.Estimator, Seed: spec.ForecastSeed, Mechanism: privacy.MechanismDefault}
		c, ok := timeTrials(sim)
		if !ok {
			e.add(estimateStep{Step: "forecasts", Model: "not modelled: no timed trial finished within 5 s (their progress lines give an ETA as they run)"})
			return nil
		}
		ans := c
		if a, ok := timeAnswerTrials(sim, spec.Alpha); ok {
			ans = a
		}
		cal, err := answerCalibrationSeconds(ctx, spec, lg)
		if err != nil {
			return err
		}
		forecastSteps(spec, c, ans, cal, releaseSeconds, len(taus), e)
	}
	if spec.Neo4j && !spec.DryRun {
		e.add(writeBackStep(2 * gr.N())) // the value and its run id
	}
	return nil
}

// answerCalibrationSeconds models the calibration of the private answer
// the release's forecasts simulate (privacy.CalibrationSeconds) on the
// partition they score: the release's communities, else Leiden's.
func answerCalibrationSeconds(ctx context.Context, spec *job.ReleaseSpec, lg *stores.Graph) (float64, error) {
	if !spec.DryRun && !spec.RefuseAtChance {
		return 0, nil
	}
	kind := spec.Communities
	if kind == "" {
		kind = "leiden"
	}
	_, part, _, err := lg.ScoredPartition(ctx, kind, 1, spec.ForecastSeed)
	if err != nil {
		return 0, err
	}
	return privacy.CalibrationSeconds(lg.Graph, part), nil
}

// forecastSteps adds the release's forecasts at trial cost c (ans: the
// private answer's trials, then its calibration, cal seconds): the dry
// run's (job.DryRunForecasts), --refuse-at-chance's (the unit forecast
// and the one at forecast.MaxMass), --smooth auto's (one simulation per
// candidate τ′), each round by job.ForecastRoundSeconds.
func forecastSteps(spec *job.ReleaseSpec, c, ans trialCost, cal, releaseSeconds float64, candidates int, e *workEstimate) {
	trials := spec.ForecastTrials
	if spec.SmoothAuto {
		e.add(trialsStep("smooth auto forecasts", candidates*trials, trials, c))
	}
	per, perAnswer := c.perTrial(trials), ans.perTrial(trials)
	var steps []job.ForecastStep
	switch {
	case spec.DryRun:
		steps = job.DryRunForecasts(trials, per, perAnswer, cal, releaseSeconds, spec.SourceMass > 0)
	case spec.RefuseAtChance:
		// Its forecasts run at the dry run's minimum budget (0 s modelled):
		// the answer's, the unit one's and the one at the largest mass.
		steps = job.DryRunForecasts(trials, per, perAnswer, cal, 0, spec.SourceMass > 0)[:2]
		at := steps[1]
		at.Step = "forecast at the largest mass"
		steps = append(steps, at)
	}
	for _, st := range steps {
		e.add(estimateStep{Step: st.Step, Seconds: st.Seconds, Model: fmt.Sprintf("%s (timed on %d trials of this graph)", st.Model, c.Done)})
	}
}

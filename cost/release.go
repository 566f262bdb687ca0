package cost

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// ReleaseWork is what a release (job.ReleaseSpec) will run, as its cost
// model reads it.
type ReleaseWork struct {
	// Taus are the τ whose Δ2 the release computes: the released one
	// (τ + τ′) first, or --smooth auto's candidates (SmoothAuto).
	Taus       []float64
	SmoothAuto bool
	// DryRun, RefuseAtChance: the dry run's forecasts, or the refusal's.
	DryRun, RefuseAtChance bool
	// CertGiven: Δ2 is given (--sensitivity-cert), not computed; Cached:
	// --sensitivity-cache may hold it.
	CertGiven, Cached bool
	// Held reports whether the release would take Δ2 at τ from its cache
	// (--sensitivity-cache's file when Cached, else the work store)
	// instead of computing it (job.ReleaseSpec.HeldSensitivity); nil:
	// nothing is held.
	Held       func(tau float64) bool
	TimeBudget time.Duration
	// Graph is the release's; Alpha, Delta, Estimator and Seed its
	// forecasts' (ReleaseSpec.ForecastSeed), Trials their trials (0: no
	// forecast), SourceMass the stated mass (0: none).
	Graph        *laplacian.Graph
	Alpha, Delta float64
	Estimator    string
	Seed         uint64
	Trials       int
	SourceMass   float64
	// Partition is the partition the forecasts score (the release's
	// communities, else Leiden's), on which the private answer they
	// simulate is calibrated; asked only when the forecasts are priced.
	Partition func() ([]int, error)
	// Neo4j: the release writes back (unless a dry run).
	Neo4j bool
	// Name names the parameters the models mention (nil: "--" and theirs).
	Name Names

	forecast forecast.Simulation // the forecasts' simulation, set by Release
}

// Release adds a release's modelled steps to e: Δ2 at each τ (the dry
// run computes it only when modelled under 10 s), the dry run's forecasts
// (the unit forecast, the private answer's, the forecast by source mass)
// or --refuse-at-chance's or --smooth auto's, by trials timed on the
// graph, and the write-back.
func Release(e *Estimate, w ReleaseWork) error {
	w.forecast = forecast.Simulation{Graph: w.Graph, Alpha: w.Alpha, Delta: w.Delta, Sources: 1, Trials: w.Trials,
		Estimator: w.Estimator, Seed: w.Seed, Mechanism: privacy.MechanismDefault}
	releaseSeconds := 0.0 // the model of the released τ's Δ2
	for i, tau := range w.Taus {
		st := delta2Step(w.forecast.Graph, tau, sensitivity.Options{TimeBudget: w.TimeBudget}, w.Name)
		if i == 0 {
			releaseSeconds = st.Seconds
		}
		switch {
		case w.CertGiven:
			st.Seconds, st.Model = 0, "given: "+w.Name.of(ParamSensitivityCert)+" (verified, not computed)"
		case w.Held != nil && w.Held(tau):
			st.Seconds, st.Model = 0, "reused from "+w.heldWhere()+": a certificate that verifies for this graph, τ and α (not computed)"
		case w.DryRun && st.Seconds >= 10 && !w.SmoothAuto:
			st.Model = fmt.Sprintf("not computed by the dry run (modelled %s, over 10 s): it shows the proven bound α√2 and σ for it", human(st.Seconds))
			st.Seconds = 0
		case w.Cached:
			st.Model += "; nothing when " + w.Name.of(ParamSensitivityCache) + " holds a certificate that verifies"
		}
		e.Add(st)
	}
	if w.forecast.Trials > 0 && w.forecast.Graph.NumEdges() > 0 && (w.DryRun || w.RefuseAtChance || w.SmoothAuto) {
		if err := w.forecasts(e, releaseSeconds); err != nil {
			return err
		}
	}
	if w.Neo4j && !w.DryRun {
		e.Add(writeBackStep(2 * w.forecast.Graph.N())) // the value and its run id
	}
	return nil
}

// heldWhere names where a held Δ2 is kept.
func (w ReleaseWork) heldWhere() string {
	if w.Cached {
		return w.Name.of(ParamSensitivityCache)
	}
	return "the store"
}

// forecasts adds the release's forecasts, their trials timed on the
// graph (timeTrials; the private answer's by timeAnswerTrials).
func (w ReleaseWork) forecasts(e *Estimate, releaseSeconds float64) error {
	sim := w.forecast
	sim.Tau, sim.Sources, sim.Trials = w.Taus[0], 1, 0
	c, ok := timeTrials(sim)
	if !ok {
		e.Add(Step{Step: "forecasts", Model: "not modelled: no timed trial finished within 5 s (their progress lines give an ETA as they run)"})
		return nil
	}
	ans := c
	if a, ok := timeAnswerTrials(sim, sim.Alpha); ok {
		ans = a
	}
	cal := 0.0
	if w.DryRun || w.RefuseAtChance {
		part, err := w.Partition()
		if err != nil {
			return err
		}
		cal = privacy.CalibrationSeconds(sim.Graph, part)
	}
	w.forecastSteps(e, c, ans, cal, releaseSeconds)
	return nil
}

// forecastSteps adds the release's forecasts at trial cost c (ans: the
// private answer's trials, then its calibration, cal seconds): the dry
// run's (dryRunForecasts), --refuse-at-chance's (the unit forecast and
// the one at forecast.MaxMass), --smooth auto's (one simulation per
// candidate τ′), each round by forecastRoundSeconds.
func (w ReleaseWork) forecastSteps(e *Estimate, c, ans trialCost, cal, releaseSeconds float64) {
	trials := w.forecast.Trials
	if w.SmoothAuto {
		e.Add(trialsStep("smooth auto forecasts", len(w.Taus)*trials, trials, c))
	}
	per, perAnswer := c.PerTrial(trials), ans.PerTrial(trials)
	var steps []Step
	switch {
	case w.DryRun:
		steps = dryRunForecasts(trials, per, perAnswer, cal, releaseSeconds, w.SourceMass > 0)
	case w.RefuseAtChance:
		// Its forecasts run at the dry run's minimum budget (0 s modelled):
		// the answer's, the unit one's and the one at the largest mass.
		steps = dryRunForecasts(trials, per, perAnswer, cal, 0, w.SourceMass > 0)[:2]
		at := steps[1]
		at.Step = "forecast at the largest mass"
		steps = append(steps, at)
	}
	for _, st := range steps {
		e.Add(Step{Step: st.Step, Seconds: st.Seconds, Model: fmt.Sprintf("%s (timed on %d trials of this graph)", st.Model, c.Done)})
	}
}

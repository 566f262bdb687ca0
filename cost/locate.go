package cost

import (
	"fmt"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/recovery"
)

// LocateWork is what a localisation or a private answer (locate) will
// run, as its cost model reads it.
type LocateWork struct {
	// Detects: the communities are detected (Leiden or Louvain).
	Detects bool
	// PrivateAnswer: the answer audit's pass (Certifier; AuditReused, when
	// set, says why none runs) and the answer's forecast.
	PrivateAnswer bool
	Certifier     recovery.CertifierOptions
	AuditReused   string
	// Forecast is the forecast's simulation (graph, τ, σ, sources,
	// estimator, seed; Trials: the forecast's trials, 0: none).
	Forecast forecast.Simulation
	// ForecastHeld: the store holds the verdict's forecast of this
	// release (job.LocateSpec.ForecastHeld), so none is simulated.
	ForecastHeld bool
	// writeBackStep: the localisation writes four properties a node to Neo4j.
	WriteBack bool
	// Recovers: the localisation recovers the source (not a dry run):
	// the recovery, its exact column norms (at most ExactNormBlocks block
	// actions, below Forecast.Sigma's threshold) and the evidence test.
	Recovers        bool
	ExactNormBlocks int
	// SourceMass is the stated source mass (0: detected by its null
	// draws when it forecasts, as the localisation's first line prices).
	SourceMass float64
}

// Locate adds a localisation's modelled steps to e: community detection,
// the forecast's simulated releases (a verdict's rounds), the source
// mass's null draws, the recovery, its exact norms and the evidence test
// (Recovers), the write-back;
// with PrivateAnswer the answer audit's pass and the answer's forecast.
func Locate(e *Estimate, w LocateWork) error {
	gr := w.Forecast.Graph
	if w.Detects {
		e.Add(detectionStep(gr.NumEdges()))
	}
	trials := w.Forecast.Trials
	if w.PrivateAnswer {
		return w.answer(e)
	}
	var K int
	var step float64 // the machine's step rate, measured once where a series prices a step
	if gr.NumEdges() > 0 {
		if K = chebyshevDegree(gr, w.Forecast.Tau, forecast.TrialBlock); K > 0 {
			step = expm.MeasureStepRate(gr, trialRateTiming).Seconds
		}
	}
	switch {
	case trials > 0 && gr.NumEdges() > 0 && w.ForecastHeld:
		e.Add(Step{Step: "forecast trials", Model: "reused from the store: the verdict's forecast of this release, graph, communities and trials (not simulated)"})
	case trials > 0 && gr.NumEdges() > 0:
		if st, ok := forecastTrialsStep(w.Forecast, K, step); ok {
			e.Add(st)
		}
	}
	if w.Recovers && K > 0 {
		draw := float64(K) * float64(2*gr.NumEdges()+gr.N()) * step
		if trials > 0 && w.SourceMass == 0 {
			e.Add(Step{Step: "source mass", Seconds: forecast.MassNullDraws * draw,
				Model: fmt.Sprintf("%d null draws, a column action each", forecast.MassNullDraws)})
		}
		for _, st := range recoverySteps(gr, w.Forecast.Tau, draw, w.ExactNormBlocks, w.Forecast.Sigma) {
			e.Add(st)
		}
	}
	if w.WriteBack {
		e.Add(writeBackStep(4 * gr.N())) // mass, community, probability, rank
	}
	return nil
}

// forecastTrialsStep is the verdict's forecast (forecast.AtMass: its
// rounds, no time budget) of sim.Trials trials: a trial priced as the
// localisation's first line prices it (perNodeTrialAt, the series of
// degree K at step seconds a step) — timing a block of trials instead took
// the estimate 5 s on LFR 10⁵ and then gave up. Where the action is dense
// (K = 0: small graphs) a block is timed.
func forecastTrialsStep(sim forecast.Simulation, K int, step float64) (Step, bool) {
	trials := sim.Trials
	if K > 0 {
		per, how := perNodeTrialAt(sim.Graph, K, step)
		return Step{Step: "forecast trials", Seconds: verdictForecastSeconds(trials, per),
			Model: fmt.Sprintf("%d round(s) of %d trials at %.3g s a trial (%s)", ForecastRounds, trials, per, how)}, true
	}
	sim.Trials = 0 // timeTrials times a block of its own
	c, ok := timeTrials(sim)
	if !ok {
		return Step{}, false
	}
	per := c.PerTrial(trials)
	return Step{Step: "forecast trials", Seconds: verdictForecastSeconds(trials, per),
		Model: fmt.Sprintf("%d round(s) of %d trials at %.3g s a trial, timed on %d trials of this graph (σ = %g)", ForecastRounds, trials, per, c.Done, c.Sigma)}, true
}

// answer adds a private answer's modelled steps: the answer audit (none
// when AuditReused) and the answer's forecast (unit sources, no σ).
func (w LocateWork) answer(e *Estimate) error {
	gr, tau := w.Forecast.Graph, w.Forecast.Tau
	if w.AuditReused != "" {
		e.Add(Step{Step: "answer audit", Model: w.AuditReused})
	} else {
		st, err := auditModel(gr, tau, w.Certifier)
		if err != nil {
			return err
		}
		e.Add(st)
	}
	if w.Forecast.Trials > 0 {
		// The answer is drawn only when its audit passed, and its forecast
		// is then that audit's exact rates (job.AnswerPlan's forecast): no
		// trials are simulated (timing them took e-mail Enron's estimate
		// 5 s for a step the run never runs).
		e.Add(Step{Step: "private-answer forecast", Model: "exact: the answer audit's rates over every source (no trials)"})
	}
	return nil
}

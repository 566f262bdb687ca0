package cost

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// ForecastBudget is the time a dry run's forecast may take, shared by
// its rounds (job's forecastGraph): 5% of the release's modelled time, at least
// 2 s.
func ForecastBudget(releaseSeconds float64) time.Duration {
	return time.Duration(max(2, 0.05*releaseSeconds) * float64(time.Second))
}

// forecastRoundSeconds models one round of a dry run's forecast
// (the simulation of job's forecastGraph: a round of the unit forecast, of a mass's,
// or the private answer's) from perTrial, the wall time of one simulated
// release on the graph: its trials, which stop starting once the round's
// share of the time budget has passed and the first min(20, trials) are
// done (forecast.Simulation's TimeBudget and MinTrials), plus about a
// trial for those still running then. releaseSeconds is the release's
// modelled time (0 for --refuse-at-chance's forecast: the minimum budget).
func forecastRoundSeconds(trials int, perTrial, releaseSeconds float64) float64 {
	b := ForecastBudget(releaseSeconds).Seconds() / forecast.VerdictRounds
	return min(float64(trials)*perTrial, max(b, float64(min(20, trials))*perTrial)+perTrial)
}

// TrialSeconds is the wall time a simulated release costs in a
// simulation of trials trials, from when the first and the k-th of them
// finished (seconds since the simulation started, its setup included):
// each trial after the first costs (last−first)/(k−1), all workers at
// once, and the first's time — the setup and its block's draw (a
// simulation draws min(forecast.TrialBlock, trials) trials' readings in
// one action) — is shared by its block. With one trial finished, its time.
func TrialSeconds(first, last float64, k, trials int) float64 {
	if k < 2 || last <= first {
		return first / float64(max(1, k))
	}
	return (last-first)/float64(k-1) + first/float64(max(1, min(forecast.TrialBlock, trials)))
}

// ForecastRounds is the rounds a forecast is modelled to take: a verdict
// (forecast.PerNode) takes one to VerdictRounds of them, as the rate is
// far from or near the guess, which is not known before; two, the
// geometric middle of 1 and 4, is within 2× of every count.
const ForecastRounds = 2

// MassRounds is the rounds a point of the forecast by source mass is
// modelled to take: most of the grid's masses are near the guess (below
// what the release resolves) and take more rounds than the unit forecast
// — 1.8 to 4 a point, 3.2 on average, on six graphs of 1.7·10⁴–4·10⁴
// nodes (docs/results.md, "The dry run's estimate at once").
const MassRounds = 3

// verdictForecastSeconds models a verdict's forecast without a time
// budget (locate's, forecast.AtMass): ForecastRounds rounds of trials
// trials at perTrial each.
func verdictForecastSeconds(trials int, perTrial float64) float64 {
	return float64(ForecastRounds*trials) * perTrial
}

// massCurveSeconds models the forecast by source mass (massCurve): masses
// points of MassRounds rounds (round: forecastRoundSeconds) — from above:
// the curve ends early once two masses in a row are answered ≥ 99%.
func massCurveSeconds(masses int, round float64) float64 {
	return float64(masses*MassRounds) * round
}

// MassPoints is how many points of forecast.MassGrid a dry run simulates
// for its forecast by source mass: all but the 1-unit one, which is the
// unit forecast, unless a source mass is stated (the dry run's forecast is
// then at that mass).
func MassPoints(statedMass bool) int {
	if statedMass {
		return len(forecast.MassGrid())
	}
	return len(forecast.MassGrid()) - 1
}

// dryRunForecasts models a dry run's forecasts of trials simulated
// releases each from perTrial, the wall time of one per-node trial on the
// graph, and answerTrial, the private answer's (its trials recover the
// source again where the plain recovery missed: 0.8–8.6 per-node trials
// each): the private answer's (one round, then its calibration,
// calibration seconds: privacy.CalibrationSeconds), the unit forecast
// (ForecastRounds rounds), the forecast by source mass (massCurveSeconds
// over MassPoints(statedMass)), each round by forecastRoundSeconds.
// release --estimate (both timed on the graph) and the dry run's
// estimates (the per-node trials priced by the step rate,
// PerNodeTrialSeconds) both take it.
func dryRunForecasts(trials int, perTrial, answerTrial, calibration, releaseSeconds float64, statedMass bool) []Step {
	round := forecastRoundSeconds(trials, perTrial, releaseSeconds)
	how := func(rounds int, per float64) string {
		return fmt.Sprintf("%d round(s) of up to %d trials at %.3g s a trial, each stopped at its share of the time budget", rounds, trials, per)
	}
	masses := MassPoints(statedMass)
	return []Step{
		{Step: "private-answer forecast", Seconds: forecastRoundSeconds(trials, answerTrial, releaseSeconds) + calibration,
			Model: how(1, answerTrial) + fmt.Sprintf(", then its calibration (%.3g s, the envelope's spreads modelled on the 2-core reference machine)", calibration)},
		{Step: "forecast trials", Seconds: ForecastRounds * round, Model: how(ForecastRounds, perTrial)},
		{Step: "forecast by source mass", Seconds: massCurveSeconds(masses, round),
			Model: fmt.Sprintf("%d masses of %d rounds at %s each", masses, MassRounds, human(round))},
	}
}

// DryRunForecastsOn is dryRunForecasts on the forecast graph and its
// partition part, the private answer's calibration modelled on them
// (privacy.CalibrationSeconds).
func DryRunForecastsOn(graph *laplacian.Graph, part []int, trials int, perTrial, answerTrial, releaseSeconds float64, statedMass bool) []Step {
	return dryRunForecasts(trials, perTrial, answerTrial, privacy.CalibrationSeconds(graph, part), releaseSeconds, statedMass)
}

package job

import (
	"strings"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// CostWork is what the localisation of spec on gr will run, as
// cost.Locate models it (locate --estimate): the communities detected
// (leiden, louvain), the forecast's trials at the released values' τ and
// σ, the recovery (its exact norms at σ) and the evidence test unless a
// dry run, the write-back when it writes to Neo4j.
func (spec *LocateSpec) CostWork(gr *laplacian.Graph, tau, sigma float64) cost.LocateWork {
	return cost.LocateWork{Detects: detects(spec.Communities),
		Forecast:  locateForecast(gr, tau, sigma, max(spec.Sources, 1), spec.ForecastTrials, spec.Estimator, spec.Seed),
		WriteBack: spec.Neo4j && !spec.Stream && !spec.DryRun,
		Recovers:  !spec.DryRun, ExactNormBlocks: exactNormBlocks(spec.Estimator), SourceMass: spec.SourceMass}
}

// CostWork is what the private answer of spec on gr will run, as
// cost.Locate models it (locate --private-answer --estimate): the
// communities detected, the forecast's trials at σ, the answer audit's
// pass with the spec's certifier — none when reused says why it is not
// run (a certificate that verifies).
func (spec *AnswerSpec) CostWork(gr *laplacian.Graph, sigma float64, reused string) cost.LocateWork {
	return cost.LocateWork{Detects: detects(spec.Communities), PrivateAnswer: true,
		Forecast:  locateForecast(gr, spec.Tau, sigma, 1, spec.ForecastTrials, spec.Estimator, spec.Seed),
		Certifier: spec.certifierOn(gr), AuditReused: reused}
}

// certifierOn is Certifier on gr with the weakest signal the store holds
// (weakestSignal): the pass of the norms priced only where it runs.
func (spec *AnswerSpec) certifierOn(gr *laplacian.Graph) recovery.CertifierOptions {
	opt := spec.Certifier(gr.N())
	opt.WeakestSignal = spec.weakestSignal(gr, opt.SensorNoise)
	return opt
}

// Certifier is the certified recovery's options of spec's answer on a
// graph of n nodes: the fit's tolerance, or the sensors' noise stated
// relative to the mean reading or in reading units (ν = s·n/m).
func (spec *AnswerSpec) Certifier(n int) recovery.CertifierOptions {
	nu := recovery.NoiseStatement{Nu: spec.SensorNoise, RMS: spec.SensorNoiseRMS, MinSourceMass: spec.MinSourceMass}.At(n)
	return recovery.CertifierOptions{Tol: spec.FitTolerance, SensorNoise: nu}
}

// detects says whether communities (KIND or KIND:ARG) are detected on
// the loaded graph rather than read or run in the database.
func detects(communities string) bool {
	kind, _, _ := strings.Cut(communities, ":")
	return kind == "leiden" || kind == "louvain"
}

// locateForecast is the simulation a localisation's forecast runs.
func locateForecast(gr *laplacian.Graph, tau, sigma float64, sources, trials int, estimator string, seed uint64) forecast.Simulation {
	return forecast.Simulation{Graph: gr, Tau: tau, Sigma: sigma, Sources: sources, Trials: trials,
		Estimator: estimator, Seed: seed, Mechanism: privacy.MechanismDefault}
}

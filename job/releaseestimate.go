package job

import (
	"time"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Estimate is release --estimate (with DryRun, the dry run's): what the
// release of spec on gr will run, modelled step by step by cost.Release
// after the graph's load (loaded, measured since start). The readings are
// not read; nothing is computed, written or charged. partition is the
// partition the forecasts score, asked only when they are priced.
func (spec *ReleaseSpec) Estimate(gr *laplacian.Graph, start time.Time, loaded time.Duration, partition func() ([]int, error), name cost.Names) (*cost.Estimate, error) {
	e := cost.NewEstimate("release", spec.Graph, gr, spec.Tau+spec.Smooth, start)
	if spec.DryRun {
		e.Command = "release " + name(cost.ParamDryRun) // a dry run's estimate
	}
	e.Add(cost.Loaded(loaded))
	if err := cost.Release(e, spec.CostWork(gr, partition, name)); err != nil {
		return nil, err
	}
	return e, nil
}

// CostWork is what the release of spec on gr will run, as cost.Release
// models it: Δ2 at the released τ + τ′, or at each τ(1 + m) of
// SmoothCandidates when τ′ is chosen (SmoothAuto).
func (spec *ReleaseSpec) CostWork(gr *laplacian.Graph, partition func() ([]int, error), name cost.Names) cost.ReleaseWork {
	taus := []float64{spec.Tau + spec.Smooth}
	if spec.SmoothAuto {
		taus = taus[:0]
		for _, m := range SmoothCandidates {
			taus = append(taus, spec.Tau*(1+m))
		}
	}
	return cost.ReleaseWork{Taus: taus, SmoothAuto: spec.SmoothAuto, DryRun: spec.DryRun, RefuseAtChance: spec.RefuseAtChance,
		CertGiven: spec.CertificatePath != "", Cached: spec.CachePath != "", TimeBudget: spec.TimeBudget,
		Held:  func(tau float64) bool { return spec.HeldSensitivity(nil, gr, tau) != nil },
		Graph: gr, Alpha: spec.Alpha, Delta: spec.Delta, Estimator: spec.Estimator, Seed: spec.ForecastSeed, Trials: spec.ForecastTrials,
		SourceMass: spec.SourceMass, Neo4j: spec.Neo4j, Name: name, Partition: partition}
}

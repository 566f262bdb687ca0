package job

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Forecasts are what a dry run shows before ε is spent: how often a
// per-node release with σ names the right community (communities as
// locate detects them by default: Leiden), and how often the private
// answer at the same ε would.
type Forecasts struct {
	PerNode *experiment.Forecast `json:"perNode"`
	Answer  *experiment.Forecast `json:"privateAnswer"`
}

// forecast simulates trials sources on graph at τ with the release's σ,
// and the private answer at ε. Each forecast stops starting trials after
// 5% of the release's modelled time (at least 2 s, and at least 20
// trials), so both cost about a tenth of the release. Simulated data
// only: its seeded streams never draw released noise.
func (p *Plan) forecast(ctx context.Context, graph *laplacian.Graph, sigma, releaseSeconds float64) (*Forecasts, error) {
	s := &p.Spec
	tau, trials := s.Tau+s.Smooth, s.ForecastTrials
	budget := time.Duration(max(2, 0.05*releaseSeconds) * float64(time.Second))
	part, err := p.forecastPartition(graph)
	if err != nil {
		return nil, err
	}
	// Rounds as locate's noise verdict takes them (at most
	// VerdictRounds), the budget shared among them.
	e := experiment.Graph{Graph: graph, Partition: part, Tau: tau, Sigma: sigma, Alpha: s.Alpha, Delta: s.Delta, Sources: 1,
		Trials: trials, Estimator: s.Estimator, Seed: s.ForecastSeed, Progress: p.env.progress("forecast trials"),
		TimeBudget: budget / experiment.VerdictRounds, MinTrials: min(20, trials)}
	pn, err := experiment.ForecastVerdict(ctx, e)
	if err != nil {
		return nil, err
	}
	pn.Epsilon, pn.Delta = s.Epsilon, s.Delta
	pn.Ceiling = experiment.Ceiling(graph, part, s.Epsilon, s.Delta)
	e.Sigma = 0
	a, err := experiment.RunAnswer(ctx, experiment.Answer{Graph: &e, Epsilon: s.Epsilon, Alpha: s.Alpha})
	if err != nil {
		return nil, err
	}
	an := experiment.ForecastOfAnswer(a)
	an.Delta, an.Ceiling = s.Delta, pn.Ceiling
	return &Forecasts{PerNode: &pn, Answer: &an}, nil
}

package job

import (
	"context"
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
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
func (p *ReleasePlan) forecast(ctx context.Context, graph *laplacian.Graph, sigma, releaseSeconds float64) (*Forecasts, error) {
	s := &p.Spec
	e, err := p.forecastGraph(graph, sigma, releaseSeconds)
	if err != nil {
		return nil, err
	}
	graph, part := e.Graph, e.Partition
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

// forecastGraph is the simulation the dry run's forecasts run: unit
// sources on graph in key order (any input order, one forecast), the
// release's τ, σ and estimator, in rounds as locate's noise verdict takes
// them (at most VerdictRounds), 5% of the release's modelled time (at
// least 2 s) shared among them.
func (p *ReleasePlan) forecastGraph(graph *laplacian.Graph, sigma, releaseSeconds float64) (experiment.Graph, error) {
	s := &p.Spec
	tau, trials := s.Tau+s.Smooth, s.ForecastTrials
	budget := time.Duration(max(2, 0.05*releaseSeconds) * float64(time.Second))
	graph, part, err := p.forecastPartition(graph)
	if err != nil {
		return experiment.Graph{}, err
	}
	return experiment.Graph{Graph: graph, Partition: part, Tau: tau, Sigma: sigma, Alpha: s.Alpha, Delta: s.Delta, Sources: 1,
		Trials: trials, Estimator: s.Estimator, Seed: s.ForecastSeed, Progress: p.env.progress("forecast trials"),
		TimeBudget: budget / experiment.VerdictRounds, MinTrials: min(20, trials)}, nil
}

// massCurve puts into the dry run's per-node forecast the forecast at
// each source mass (experiment.MassCurve): what mass a release at this ε
// can resolve. A locate's verdict on the release simulates the mass its
// readings carry, so this is the verdict's forecast before the release.
func (p *ReleasePlan) massCurve(ctx context.Context, graph *laplacian.Graph, sigma, releaseSeconds float64, f *experiment.Forecast) error {
	e, err := p.forecastGraph(graph, sigma, releaseSeconds)
	if err != nil {
		return err
	}
	e.Progress = p.env.progress("forecast by source mass")
	f.MassCurve, f.ResolvableMass, err = experiment.MassCurve(ctx, e)
	return err
}

// AtChanceError refuses a release (ReleaseSpec.RefuseAtChance) whose forecast
// right-community rate cannot be told from chance: nothing was charged or
// drawn. It carries both forecasts, so the caller can point at the private
// answer when that one is useful.
type AtChanceError struct {
	Epsilon   float64
	Forecasts *Forecasts
}

func (e *AtChanceError) Error() string {
	return e.RenderText(func(p errkind.Param) string { return string(p) })
}

// RenderText is its text naming parameters as name does.
func (e *AtChanceError) RenderText(name func(errkind.Param) string) string {
	f := e.Forecasts.PerNode
	msg := fmt.Sprintf("release refused (%s), nothing charged: at ε = %g the per-node release is forecast to put the "+
		"source's community first %.3f [%.3f, %.3f] of the time, which cannot be told from chance (%.4f; the largest community %.4f)",
		name(ParamRefuseAtChance), e.Epsilon, f.CommunityAccuracy, f.Low, f.High, f.Chance, f.PriorRate)
	if a := e.Forecasts.Answer; a != nil && !a.AtChance {
		msg += fmt.Sprintf("; a private answer at the same ε is forecast right %.3f [%.3f, %.3f] (%s)", a.CommunityAccuracy, a.Low, a.High, name(ParamPrivateAnswer))
	}
	return msg + "; see graphcloak plan for the ε it would take"
}

// Kind: the request, not the system, is at fault (bad input).
func (*AtChanceError) Kind() errkind.Kind { return errkind.BadInput }

// refuseAtChance is the release's Check when ReleaseSpec.RefuseAtChance is set:
// it forecasts the release at the calibrated σ (as the dry run does, its
// time budget the dry run's minimum) and refuses one at chance. The
// forecast is kept in the summary either way.
func (p *ReleasePlan) refuseAtChance(ctx context.Context, cal privacy.ReleaseCalibration) error {
	s := &p.Spec
	if s.ForecastTrials <= 0 || p.Input.Graph.NumEdges() == 0 {
		return nil
	}
	f, err := p.forecast(ctx, p.Input.Graph, cal.Sigma, 0)
	if err != nil {
		return err
	}
	p.Summary.Forecast = f
	if f.PerNode.AtChance {
		return &AtChanceError{Epsilon: s.Epsilon, Forecasts: f}
	}
	return nil
}
